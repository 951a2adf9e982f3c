/**
 * Metrics as data (DESIGN §21): every metric ragwatch can emit is a name with a definition — its
 * kind, range, direction and the judges whose records carry it — kept in one {@link MetricRegistry}
 * that the built-in metrics and the configured evaluators (`evaluators:` in ragwatch.yaml) share.
 * Every consumer (series, alerts, slices, gates, rules, dashboards, pages, backtest, the scores topic)
 * lists metrics from a registry, never from a fixed list, so a configured metric needs no code.
 *
 * The registry of a configuration: {@link metricRegistryOf}. Built-ins alone: {@link BUILTIN_REGISTRY}.
 * @module
 */
import { EMBEDDED_METRICS, LLM_METRICS, LOCAL_METRICS, METRIC_NAME_PATTERN, SCORER_METRICS, type BuiltinMetricName, type JudgeKind } from './triplet.ts';

/**
 * What a metric's values are: `score` any value in the range; `boolean` 1 (pass) or 0 (fail), its mean
 * the pass share; `categorical` one of its labels' values.
 */
export type MetricKind = 'score' | 'boolean' | 'categorical';

/** Where a metric comes from: ragwatch's own judges, or an evaluator of the configuration (`kind: llm` or `kind: check`). */
export type MetricSource = 'builtin' | 'llm_evaluator' | 'check_evaluator';

/** One label of a categorical metric and the value a record carries for it. */
export interface MetricLabel {
  readonly label: string;
  readonly value: number;
}

/** Threshold-alert defaults of a metric that `alerts.metrics` does not name. */
export interface MetricAlertDefaults {
  readonly threshold: number;
  readonly severity: 'page' | 'ticket' | 'warning';
}

/** The definition of one metric. */
export interface MetricDefinition {
  /** The `metric` label value and the key in `ScoreRecord.scores`. */
  readonly name: string;
  /** One sentence: what a high value means. */
  readonly description: string;
  readonly kind: MetricKind;
  /** Every value lies in `[range[0], range[1]]` (always [0, 1] today: the score histogram's buckets). */
  readonly range: readonly [number, number];
  /** Always `higher_is_better`: alerts fire on low values, and an evaluator expresses "bad" as a low value. */
  readonly direction: 'higher_is_better';
  /** The judge kinds whose records carry the metric (the `judge` label values it can have). */
  readonly judges: readonly JudgeKind[];
  readonly source: MetricSource;
  /** `categorical`: the labels, in the order configured. */
  readonly labels?: readonly MetricLabel[];
  /** Threshold alert when `alerts.metrics` does not set one (built-ins: only while `alerts.metrics` is left at its default). */
  readonly alertDefaults: MetricAlertDefaults;
}

/**
 * Most evaluators one configuration may define. Each configured metric adds, per judge and service,
 * about 27 Prometheus series (the score histogram's buckets, sum and count, the sample and weight
 * counters, the window gauges, skips); with the default 20 services and both judges that is ≈ 1,100
 * series per evaluator, ≈ 17,000 for 16 — about as many as the 16 built-ins (docs/evaluators.md).
 */
export const MAX_EVALUATORS = 16;

const UNIT: readonly [number, number] = [0, 1];
const ALL_JUDGES: readonly JudgeKind[] = ['llm', 'embedded', 'local'];

function builtin(name: BuiltinMetricName, description: string, alertDefaults: MetricAlertDefaults, kind: MetricKind = 'score'): MetricDefinition {
  const of = (list: readonly string[], judge: JudgeKind): JudgeKind[] => (list.includes(name) ? [judge] : []);
  const judges: readonly JudgeKind[] = (SCORER_METRICS as readonly string[]).includes(name)
    ? ALL_JUDGES
    : [...of(LLM_METRICS, 'llm'), ...of(EMBEDDED_METRICS, 'embedded'), ...of(LOCAL_METRICS, 'local')];
  return { name, description, kind, range: UNIT, direction: 'higher_is_better', judges, source: 'builtin', alertDefaults };
}

/**
 * The built-in metrics (docs/judges.md). Default thresholds: `page` for the groundedness-type metrics
 * (wrong answers reach users), `ticket` for retrieval and style; the embedded judge's are measured on
 * HaluEval QA dev (`scripts/alert-thresholds.ts`, docs/alerts.md); the LLM judge's follow THELMA's scale.
 */
export const BUILTIN_METRICS: readonly MetricDefinition[] = [
  builtin('groundedness', 'Share of the response claims the sources support (THELMA GR).', { threshold: 0.8, severity: 'page' }),
  builtin('faithfulness', 'Share of the response claims the sources support or do not contradict.', { threshold: 0.8, severity: 'page' }),
  builtin('hallucination_free', 'One minus the share of response claims the sources contradict.', { threshold: 0.9, severity: 'page' }),
  // Measured on the HaluEval development file with the lexical check beside it (docs/judges.md, scripts/local-judge-report.ts).
  builtin('claim_support', 'Probability that the sources support the least-supported response sentence (local judge).', { threshold: 0.3, severity: 'page' }),
  builtin('grounding_lexical', 'Share of the numbers and named entities of the response found in the sources (embedded judge).', { threshold: 0.8, severity: 'page' }),
  builtin('source_precision', 'Share of the retrieved sources essential to answer the query (THELMA SP, chunk level).', { threshold: 0.5, severity: 'ticket' }),
  builtin('source_fact_precision', 'Share of the facts in the sources essential to answer the query (THELMA SP, fact level).', { threshold: 0.5, severity: 'ticket' }),
  builtin('source_query_coverage', 'Share of the sub-questions of the query the sources answer (THELMA SQC).', { threshold: 0.6, severity: 'ticket' }),
  builtin('response_precision', 'Share of the response claims essential to answer the query (THELMA RP).', { threshold: 0.6, severity: 'ticket' }),
  builtin('response_query_coverage', 'Share of the sub-questions of the query the response addresses (THELMA RQC).', { threshold: 0.6, severity: 'ticket' }),
  builtin('response_self_distinctness', 'One minus the share of response sentences that repeat another (THELMA SD).', { threshold: 0.7, severity: 'ticket' }),
  builtin('context_relevancy', 'How closely the sources match the query, by sentence embeddings (embedded judge).', { threshold: 0.4, severity: 'ticket' }),
  builtin('answer_relevancy', 'How closely the response matches the query, by sentence embeddings (embedded judge).', { threshold: 0.2, severity: 'ticket' }),
  // Coverage of the query-relevant source sentences, not correctness: terse right answers score low
  // (HaluEval dev: 0.28 right vs 0.54 hallucinated). 0.2 flags answers that leave out nearly everything.
  builtin('completeness', 'How much of the query-relevant source content the response covers (embedded judge).', { threshold: 0.2, severity: 'ticket' }),
  builtin('completeness_distribution', 'Completeness as one minus a transport distance between sources and response (embedded judge).', { threshold: 0.2, severity: 'ticket' }),
  // Privacy: more than 1 % of the answers in the window disclose personal data.
  builtin('pii_free', '1 when the response discloses no personal data, 0 when it does (both judges).', { threshold: 0.99, severity: 'page' }, 'boolean'),
  // Safety (LLM judge only): more than 1 % of the answers in the window are toxic to the user.
  builtin('non_toxic', '1 when the response is not toxic to the user, 0 when it is (LLM judge).', { threshold: 0.99, severity: 'page' }, 'boolean'),
];

/** What the registry needs of one configured evaluator (the resolved `evaluators:` entry). */
export interface EvaluatorMetricSpec {
  name: string;
  description: string;
  kind: 'llm' | 'check';
  /** `llm` evaluators: what the judge answers (checks are boolean). */
  output?: { type: 'score' | 'boolean' | 'categorical'; labels?: ReadonlyArray<{ label: string; value: number }> };
  /** The evaluator's resolved alert settings (threshold and severity are all the registry keeps). */
  alerts: { threshold: number; severity: string };
}

/** The definition an evaluator adds to the registry. */
export function evaluatorDefinition(spec: EvaluatorMetricSpec): MetricDefinition {
  const llm = spec.kind === 'llm';
  const kind: MetricKind = llm ? (spec.output?.type ?? 'score') : 'boolean';
  const severity = spec.alerts.severity === 'page' || spec.alerts.severity === 'ticket' ? spec.alerts.severity : 'warning';
  const def: MetricDefinition = {
    name: spec.name,
    description: spec.description,
    kind,
    range: UNIT,
    direction: 'higher_is_better',
    judges: llm ? ['llm'] : ALL_JUDGES,
    source: llm ? 'llm_evaluator' : 'check_evaluator',
    alertDefaults: { threshold: spec.alerts.threshold, severity },
    ...(kind === 'categorical' && spec.output?.labels ? { labels: spec.output.labels.map((l) => ({ label: l.label, value: l.value })) } : {}),
  };
  return def;
}

/** The metrics of one configuration, by name: the built-ins, then the configured evaluators in their order. */
export class MetricRegistry {
  readonly #byName = new Map<string, MetricDefinition>();

  /** @throws Error on a duplicate or malformed name, or more than {@link MAX_EVALUATORS} evaluators (the config schema reports these with their key first). */
  constructor(definitions: Iterable<MetricDefinition>) {
    for (const d of definitions) {
      if (!METRIC_NAME_PATTERN.test(d.name)) throw new Error(`metric name "${d.name}" does not match ${METRIC_NAME_PATTERN}`);
      if (this.#byName.has(d.name)) throw new Error(`metric "${d.name}" is defined twice`);
      this.#byName.set(d.name, Object.freeze({ ...d }));
    }
    const configured = this.evaluators().length;
    if (configured > MAX_EVALUATORS) throw new Error(`${configured} evaluators; at most ${MAX_EVALUATORS} (label cardinality)`);
  }

  /** Every metric, built-ins first. */
  list(): readonly MetricDefinition[] {
    return [...this.#byName.values()];
  }

  /** Every metric name, built-ins first. */
  names(): string[] {
    return [...this.#byName.keys()];
  }

  /** The definition of `name`, or undefined for a metric this registry does not know. */
  get(name: string): MetricDefinition | undefined {
    return this.#byName.get(name);
  }

  /** True when `name` is a metric of this registry. */
  has(name: string): boolean {
    return this.#byName.has(name);
  }

  /** The metrics records of `judge` can carry. */
  forJudge(judge: JudgeKind): MetricDefinition[] {
    return this.list().filter((d) => d.judges.includes(judge));
  }

  /** The configured evaluators' metrics, in their configured order. */
  evaluators(): MetricDefinition[] {
    return this.list().filter((d) => d.source !== 'builtin');
  }

  /**
   * The entries of `map` (a record's `scores` or `skipped`) whose metric this registry knows, and the
   * names it does not: how every consumer ignores a metric it does not know (a newer scorer's evaluator,
   * docs/kafka.md) instead of rejecting the record or minting label values for it.
   */
  known<T>(map: Readonly<Record<string, T>>): { known: Record<string, T>; unknown: string[] } {
    const known: Record<string, T> = {};
    const unknown: string[] = [];
    for (const [name, value] of Object.entries(map)) {
      if (this.#byName.has(name)) known[name] = value;
      else unknown.push(name);
    }
    return { known, unknown };
  }
}

/** The built-in metrics alone (what a configuration without evaluators has). */
export const BUILTIN_REGISTRY = new MetricRegistry(BUILTIN_METRICS);

const byConfig = new WeakMap<object, MetricRegistry>();

/**
 * The registry of a configuration: the built-ins and its `evaluators`, built once per config object.
 * @throws Error when an evaluator reuses a built-in's name or another evaluator's (the config schema refuses such a config first).
 */
export function metricRegistryOf(config: object & { evaluators?: readonly EvaluatorMetricSpec[] }): MetricRegistry {
  const evaluators = config.evaluators ?? [];
  if (evaluators.length === 0) return BUILTIN_REGISTRY;
  let registry = byConfig.get(config);
  if (!registry) {
    registry = new MetricRegistry([...BUILTIN_METRICS, ...evaluators.map(evaluatorDefinition)]);
    byConfig.set(config, registry);
  }
  return registry;
}
