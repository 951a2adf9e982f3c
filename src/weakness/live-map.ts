/**
 * The live weakness map: the scored answers of the last `metrics.windowMs` (at most
 * `weakness.maxAnswers`, oldest evicted and counted) with their topic, question type, route and model,
 * broken down into cells with intervals and flags ({@link weaknessCells}) — recomputed at most every
 * `cacheMs` — and exported: marginal means per topic and question type, bivariate means and counts per
 * topic × question type, and the flagged cells. Every label set is bounded (docs/weaknesses.md).
 * @module
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { worstFlagged, type MetricCell, type ScoredAnswer } from './cells.ts';
import { AnswerColumns } from './columns.ts';

/** Options of {@link LiveWeaknessMap}. */
export interface LiveWeaknessMapOptions {
  registry: Registry;
  windowMs: number;
  maxAnswers: number;
  bivariateMetrics: readonly string[];
  minCount: number;
  fdr: number;
  /** Cells are recomputed at most this often. Default 5000. */
  cacheMs?: number;
  /** Flagged cells exported per metric and judge at most (the worst first). Default 20. */
  maxFlaggedSeries?: number;
  now?: () => number;
}

const DIMENSION_LABEL: Readonly<Record<string, string>> = { topic: 'topic', queryType: 'query_type', route: 'route', model: 'model', release: 'release' };

export class LiveWeaknessMap {
  readonly #o: LiveWeaknessMapOptions;
  readonly #now: () => number;
  readonly #ring: AnswerColumns;
  readonly #evicted: Counter;
  #cells: { atMs: number; cells: MetricCell[] } | undefined;

  constructor(options: LiveWeaknessMapOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#ring = new AnswerColumns(options.maxAnswers);
    const registers = [options.registry];
    const cells = () => this.cells();
    const { windowMs } = options;
    const marginal = (name: string, dimension: 'topic' | 'queryType', label: string, help: string) =>
      new Gauge({
        name,
        help,
        labelNames: ['metric', 'judge', label],
        registers,
        collect() {
          this.reset();
          for (const c of cells()) if (Object.keys(c.dimensions).length === 1 && c.dimensions[dimension] !== undefined) this.set({ metric: c.metric, judge: c.judge, [label]: c.dimensions[dimension] }, c.mean);
        },
      });
    marginal('ragwatch_score_by_query_type_mean_ratio', 'queryType', 'query_type', `Weighted mean score over metrics.windowMs (${windowMs} ms) by metric, judge and question type (what, who, when, where, why, how, yes_no, comparison, list, numeric, other); absent when none was scored.`);
    marginal('ragwatch_score_by_topic_mean_ratio', 'topic', 'topic', `Weighted mean score over metrics.windowMs (${windowMs} ms) by metric, judge and question topic (t0…, other; names in ragwatch_topic_info); absent until the topics are fitted.`);
    const bivariate = (name: string, help: string, value: (c: MetricCell) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['metric', 'judge', 'topic', 'query_type'],
        registers,
        collect() {
          this.reset();
          for (const c of cells()) {
            const { topic, queryType } = c.dimensions;
            if (topic !== undefined && queryType !== undefined) this.set({ metric: c.metric, judge: c.judge, topic, query_type: queryType }, value(c));
          }
        },
      });
    bivariate('ragwatch_weakness_cell_mean_ratio', `Weighted mean of a weakness.bivariateMetrics metric over metrics.windowMs (${windowMs} ms) per question topic × question type.`, (c) => c.mean);
    bivariate('ragwatch_weakness_cell_samples', 'Scored answers per question topic × question type cell (the heat map’s counts).', (c) => c.n);
    const maxFlagged = options.maxFlaggedSeries ?? 20;
    new Gauge({
      name: 'ragwatch_weakness_flagged',
      help: 'Cells worse than the rest of the traffic (interval below the rest, Benjamini–Hochberg at weakness.fdr, at least weakness.minCount answers), valued at their mean; dimension is topic, query_type, route, model or topic,query_type; at most 20 per metric and judge.',
      labelNames: ['metric', 'judge', 'dimension', 'cell'],
      registers,
      collect() {
        this.reset();
        const perGroup = new Map<string, number>();
        for (const c of [...cells()].filter((x) => x.flagged).sort((a, b) => a.mean - b.mean)) {
          const group = `${c.metric}\u0000${c.judge}`;
          const n = perGroup.get(group) ?? 0;
          if (n >= maxFlagged) continue;
          perGroup.set(group, n + 1);
          const dims = Object.keys(c.dimensions);
          this.set({ metric: c.metric, judge: c.judge, dimension: dims.map((d) => DIMENSION_LABEL[d] ?? d).join(','), cell: dims.map((d) => c.dimensions[d]).join(',') }, c.mean);
        }
      },
    });
    this.#evicted = new Counter({ name: 'ragwatch_weakness_evicted_total', help: 'Scored answers evicted from the live weakness map before metrics.windowMs was over, because weakness.maxAnswers were held.', registers });
  }

  /** Adds a scored answer. Never throws; O(1). */
  add(answer: ScoredAnswer): void {
    const now = this.#now();
    const replaced = this.#ring.add(answer, now);
    if (replaced !== undefined && now - replaced < this.#o.windowMs) this.#evicted.inc();
  }

  /** The answers of the window, as objects (pages and diagnoses; the cells never build them). */
  answers(): ScoredAnswer[] {
    return this.#ring.answers(this.#now() - this.#o.windowMs);
  }

  /** The cells over the window (cached for `cacheMs`). */
  cells(): MetricCell[] {
    const now = this.#now();
    // One scrape reads the cells four times; a busy scorer adds answers between them.
    if (this.#cells && now - this.#cells.atMs < (this.#o.cacheMs ?? 5_000)) return this.#cells.cells;
    const cells = this.#ring.cells(now - this.#o.windowMs, { bivariateMetrics: this.#o.bivariateMetrics, minCount: this.#o.minCount, fdr: this.#o.fdr });
    this.#cells = { atMs: now, cells };
    return cells;
  }

  /** The flagged cell of `metric` (and `judge`) with the lowest mean. */
  worst(metric: string, judge?: string): MetricCell | undefined {
    return worstFlagged(this.cells(), metric, judge);
  }
}
