/**
 * The scheduled prober (DESIGN §13): runs each suite on its `schedule.every`, joins every probe to
 * the service's own captured trace by trace id (sources for the module attribution, score records for
 * the judge audit), and publishes the run's series and alerts. One per deployment: `ragwatch start`
 * or the single `ragwatch prober` replica — never the scorers, which would probe once each.
 * @module
 */
import { silentLogger, type Logger } from '../log.ts';
import { requireDurationMs } from '../metrics/duration.ts';
import type { EvaluatorSet } from '../evaluators/types.ts';
import type { PiiCheck } from '../judges/pii.ts';
import type { Judge } from '../judges/types.ts';
import type { TripletRedactor } from '../capture/redaction/types.ts';
import type { SampledTriplet, ScoreRecord } from '../triplet.ts';
import type { ProbeAlerts} from './alerts.ts';
import { type SuiteState } from './alerts.ts';
import type { AlertNotice } from '../metrics/notifier.ts';
import { judgeAudit } from './audit.ts';
import type { JudgeMatch } from './judge-match.ts';
import type { ProbeInstruments } from './metrics.ts';
import { attribute, runProbes, summarize, type Ask, type ProbeOutcome, type ProbeReport } from './runner.ts';
import { scoreProbeAnswers } from './score-answers.ts';
import { askTarget } from './target.ts';
import { probeTraceId } from './trace-id.ts';
import type { RecordSink } from '../scorer/record-sinks.ts';
import { isProbeTraceId } from '../triplet.ts';
import type { ProbeSuite } from './suite.ts';
import type { ProbeQuery } from './types.ts';
import { probeRunOf, type ProbeRun, type ProbeRuns, type SuiteRuns } from './run-view.ts';

/** A suite ready to run: validated, its queries generated. */
export interface LoadedSuite {
  suite: ProbeSuite;
  queries: ProbeQuery[];
  /** Grades the `match: judge` templates. */
  judgeMatch?: JudgeMatch;
}

/** Options of {@link Prober}; `suites` and `instruments` are required. */
export interface ProberOptions {
  suites: readonly LoadedSuite[];
  instruments: ProbeInstruments;
  alerts?: ProbeAlerts;
  /** Alert thresholds by metric, for the judge audit. */
  thresholds?: Readonly<Record<string, number>>;
  /** How long to wait after a run for the probes' captured traces and scores, milliseconds. Default 60000. */
  joinTimeoutMs?: number;
  /** Score records expected per probe trace (2 with a companion judge). Default 1. */
  recordsPerTrace?: number;
  /** Delay before each suite's first run, milliseconds. Default 10000. */
  firstRunDelayMs?: number;
  /** Alert evaluation interval (the stale alert needs a clock), milliseconds; 0 = no timer. Default 15000. */
  evaluationIntervalMs?: number;
  /** Scores answers that came with sources but whose trace was not captured (an uninstrumented service). */
  fallback?: { judge: Judge; redactor: TripletRedactor; concurrency: number; pii?: PiiCheck; evaluators?: EvaluatorSet };
  /** Asks one query under a trace id (default: the suite's HTTP target). */
  ask?: (suite: ProbeSuite, query: ProbeQuery, traceId: string) => ReturnType<Ask>;
  logger?: Logger;
  now?: () => number;
}

interface Joined {
  records: ScoreRecord[];
  sources?: Array<{ id?: string; content: string }>;
}

/** Runs the suites on their schedules; a sink of the scorer (it joins its probes' captured traces) and the pages' {@link ProbeRuns}. */
export class Prober implements RecordSink, ProbeRuns {
  readonly #o: ProberOptions;
  readonly #now: () => number;
  readonly #states = new Map<string, SuiteState & { loaded: LoadedSuite; running?: Promise<ProbeReport | undefined>; lastRun?: ProbeRun; previousRun?: ProbeRun }>();
  /** Trace ids of the runs in progress; bounded by their queries. */
  readonly #pending = new Map<string, Joined>();
  readonly #waiters = new Set<() => void>();
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #abort = new AbortController();
  #started = false;

  constructor(options: ProberOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    for (const loaded of options.suites) {
      const periodMs = requireDurationMs(loaded.suite.schedule.every);
      this.#states.set(loaded.suite.suite, { suite: loaded.suite, loaded, periodMs, sinceMs: this.#now() });
    }
  }

  /** Starts every suite's schedule (unref'd timers). Idempotent. */
  start(): void {
    if (this.#started || this.#abort.signal.aborted) return;
    this.#started = true;
    const now = this.#now();
    for (const s of this.#states.values()) {
      s.sinceMs = now;
      this.#o.instruments.describe(s.suite, s.periodMs, now);
      const first = setTimeout(() => {
        void this.run(s.suite.suite);
        const every = setInterval(() => void this.run(s.suite.suite), s.periodMs);
        every.unref();
        this.#timers.push(every);
      }, this.#o.firstRunDelayMs ?? 10_000);
      first.unref();
      this.#timers.push(first);
    }
    const evalMs = this.#o.evaluationIntervalMs ?? 15_000;
    if (evalMs > 0 && this.#o.alerts) {
      const t = setInterval(() => this.#o.alerts!.evaluate(this.#states.values(), this.#now()), evalMs);
      t.unref();
      this.#timers.push(t);
    }
  }

  /** A sink of the scorer (or of the score feed): keeps the records and sources of the running probes. Never throws. */
  readonly onRecord = (record: ScoreRecord, triplet?: SampledTriplet): void => {
    if (!isProbeTraceId(record.traceId)) return;
    const joined = this.#pending.get(record.traceId);
    if (!joined) return;
    joined.records.push(record);
    if (triplet && joined.sources === undefined) joined.sources = triplet.sources.map((s) => ({ content: s.content, ...(s.id !== undefined ? { id: s.id } : {}) }));
    for (const wake of this.#waiters) wake();
  };

  /** Every suite with its last two completed runs (the `/probes` page, `/api/probes`, `/api/status`). */
  runs(): SuiteRuns[] {
    return [...this.#states.values()].map((s) => ({ suite: s.suite.suite, every: s.suite.schedule.every, ...(s.lastRun ? { last: s.lastRun } : {}), ...(s.previousRun ? { previous: s.previousRun } : {}) }));
  }

  /** The probe alerts firing at the last evaluation. */
  firing(): AlertNotice[] {
    return this.#o.alerts?.firing() ?? [];
  }

  /** The last completed report of a suite. */
  last(suite: string): ProbeReport | undefined {
    return this.#states.get(suite)?.last;
  }

  /**
   * Runs one suite now (the schedule calls this); resolves with its report, or undefined when the
   * previous run is still going (counted `skipped_overlap`) or the prober is shutting down.
   */
  run(name: string): Promise<ProbeReport | undefined> {
    const s = this.#states.get(name);
    if (!s) return Promise.reject(new Error(`no probe suite named ${name}`));
    if (s.running) {
      this.#o.instruments.runs.inc({ suite: name, status: 'skipped_overlap' });
      return Promise.resolve(undefined);
    }
    const running = this.#runOnce(s).catch((err: unknown) => {
      this.#o.instruments.runs.inc({ suite: name, status: 'failed' });
      (this.#o.logger ?? silentLogger).error({ err, suite: name }, 'probe run failed');
      return undefined;
    });
    s.running = running.finally(() => (s.running = undefined));
    return s.running;
  }

  async #runOnce(s: SuiteState & { loaded: LoadedSuite; lastRun?: ProbeRun; previousRun?: ProbeRun }): Promise<ProbeReport | undefined> {
    const started = this.#now();
    const { suite, queries } = s.loaded;
    const ids: string[] = [];
    const askOne = this.#o.ask ?? ((st: ProbeSuite, q: ProbeQuery, traceId: string) => askTarget(st.target, st.suite, q.query, traceId, this.#abort.signal));
    const ask: Ask = (q) => {
      // Registered before the request leaves: the service's trace may be scored before the reply is read.
      const traceId = probeTraceId();
      ids.push(traceId);
      this.#pending.set(traceId, { records: [] });
      return askOne(suite, q, traceId);
    };
    try {
      const outcomes = await runProbes(suite, queries, { ask, signal: this.#abort.signal, ...(s.loaded.judgeMatch ? { judgeMatch: s.loaded.judgeMatch } : {}) });
      if (this.#abort.signal.aborted) return undefined;
      await this.#join(outcomes);
      const records = new Map<string, ScoreRecord[]>();
      for (const o of outcomes) {
        const joined = this.#pending.get(o.traceId);
        if (!joined) continue;
        if (o.sources === undefined && joined.sources !== undefined) o.sources = joined.sources;
        if (joined.records.length > 0) records.set(o.traceId, joined.records);
      }
      await this.#scoreUnjoined(outcomes, records);
      attribute(outcomes);
      const report = summarize(suite.suite, outcomes, judgeAudit(outcomes, records, this.#o.thresholds ?? {}));
      const end = this.#now();
      s.last = report;
      s.lastCompletedMs = end;
      if (s.lastRun) s.previousRun = s.lastRun;
      s.lastRun = probeRunOf(report, outcomes, records, started, end);
      this.#o.instruments.record(report, perTemplate(outcomes), end, end - started);
      this.#o.alerts?.evaluate(this.#states.values(), end);
      (this.#o.logger ?? silentLogger).info({ suite: suite.suite, queries: report.queries, accuracy: report.accuracy, robustness: report.robustness, groups: report.groups, joined: records.size }, 'probe run completed');
      return report;
    } finally {
      for (const id of ids) this.#pending.delete(id);
    }
  }

  /** Waits until every answered probe has its records, or the join timeout. */
  async #join(outcomes: readonly ProbeOutcome[]): Promise<void> {
    const want = this.#o.recordsPerTrace ?? 1;
    const answered = outcomes.filter((o) => o.outcome !== 'error');
    const done = () => answered.every((o) => (this.#pending.get(o.traceId)?.records.length ?? 0) >= want) || this.#abort.signal.aborted;
    if (done()) return;
    await new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        this.#abort.signal.removeEventListener('abort', finish);
        resolve();
      };
      const check = () => {
        if (done()) finish();
      };
      const timer = setTimeout(finish, this.#o.joinTimeoutMs ?? 60_000);
      timer.unref();
      this.#waiters.add(check);
      this.#abort.signal.addEventListener('abort', finish);
    });
  }

  /** Answers with sources but no captured trace (the service is not instrumented): scored here. */
  async #scoreUnjoined(outcomes: ProbeOutcome[], records: Map<string, ScoreRecord[]>): Promise<void> {
    const fb = this.#o.fallback;
    if (!fb) return;
    const todo = outcomes.filter((o) => !records.has(o.traceId));
    if (todo.length === 0) return;
    for (const [id, rs] of await scoreProbeAnswers(todo, fb.judge, fb.redactor, fb.concurrency, fb.pii, fb.evaluators)) records.set(id, rs);
  }

  /** Stops the schedules and abandons runs in progress (their queries already asked finish). Idempotent. */
  async shutdown(): Promise<void> {
    this.#abort.abort();
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.length = 0;
    await Promise.all([...this.#states.values()].map((s) => s.running));
  }

  /** Nothing is buffered between runs. */
  async forceFlush(): Promise<void> {}
}

/** Outcome and failure counts per template. */
function perTemplate(outcomes: readonly ProbeOutcome[]): Map<string, { outcomes: Record<string, number>; failures: Record<string, number> }> {
  const out = new Map<string, { outcomes: Record<string, number>; failures: Record<string, number> }>();
  for (const o of outcomes) {
    let t = out.get(o.query.template);
    if (!t) out.set(o.query.template, (t = { outcomes: { correct: 0, wrong: 0, abstained: 0, error: 0 }, failures: { retrieval: 0, generator: 0, unknown: 0 } }));
    t.outcomes[o.outcome] = (t.outcomes[o.outcome] ?? 0) + 1;
    if (o.module) t.failures[o.module] = (t.failures[o.module] ?? 0) + 1;
  }
  return out;
}
