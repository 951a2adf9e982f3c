/**
 * `ragwatch alerts backtest`: replays score records (as `ragwatch score` prints them and the scores
 * topic carries them) in the order of their `timestamp` through the same evaluators as a scoring
 * process — the threshold alerts of `metrics/`, the change alerts of `change/`, the SLOs' burn-rate
 * alerts of `slo/`, and the slice alerts and release verdicts of `slices/` — on a simulated
 * clock stepped at `alerts.evaluationIntervalMs`, and reports every alert's firing intervals.
 * Nothing is notified and nothing is written.
 * @module
 */
import { ChangeMonitor } from '../change/monitor.ts';
import { changeAlertName, changeRulesFromConfig } from '../change/rules.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { requireDurationMs } from '../metrics/duration.ts';
import { ScoreMetrics } from '../metrics/score-metrics.ts';
import { SliceMonitor } from '../slices/monitor.ts';
import { sliceAlertName } from '../slices/notice.ts';
import { sliceSettingsFromConfig } from '../slices/settings.ts';
import type { ReleaseVerdict } from '../slices/statistic.ts';
import { SloMonitor } from '../slo/monitor.ts';
import { sloAlertName, sloRulesFromConfig } from '../slo/rules.ts';
import { createInstruments, instrumentsOptionsFromConfig } from '../telemetry/instruments.ts';
import type { AlertNotice } from '../metrics/notifier.ts';
import { BUILTIN_REGISTRY, metricRegistryOf, type MetricRegistry } from '../metric-registry.ts';
import { scoreRecordSchema, type ScoreRecord } from '../triplet.ts';

/** The kinds of alert a backtest replays. */
export type BacktestKind = 'threshold' | 'change' | 'burn_rate' | 'slice';

/** One alert instance and when it fired. */
export interface BacktestAlert {
  name: string;
  metric: string;
  judge: string;
  service: string;
  severity: string;
  kind: BacktestKind;
  /** The slice a slice alert names, e.g. `{ "release": "v2" }`. */
  slice?: Record<string, string>;
  firings: Array<{ start: string; end: string }>;
}

/** How one candidate release's verdict against its service's baseline release changed over the replay. */
export interface BacktestRelease {
  service: string;
  release: string;
  baseline: string;
  /** Each change of verdict, from the first evaluation that compared the release. */
  verdicts: Array<{ verdict: ReleaseVerdict; since: string }>;
}

/** What a backtest found. */
export interface BacktestReport {
  /** Records replayed. */
  records: number;
  /** RFC 3339 time of the first and last record replayed (null without any). */
  from: string | null;
  to: string | null;
  alerts: BacktestAlert[];
  /** The release comparisons (deploy gate) over the replay. */
  releases: BacktestRelease[];
  /** Lines not replayed, with the reason (line numbers from 1). */
  rejected: Array<{ line: number; reason: string }>;
  /** Lines past the first 100 rejected ones, counted only. */
  rejectedMore: number;
  /** Scores of metrics the configuration does not know (neither built-in nor evaluator), left out (the rest of their records replayed). */
  unknownMetrics: Record<string, number>;
}

const MAX_REJECTED_LISTED = 100;

/**
 * Parses the lines of a score file: valid records in timestamp order (stable for equal times), and what
 * was rejected. Metrics `registry` does not know are left out and counted. Default registry: the built-ins.
 */
export async function readScoreLines(lines: Iterable<string> | AsyncIterable<string>, registry: MetricRegistry = BUILTIN_REGISTRY): Promise<{ records: Array<{ ms: number; record: ScoreRecord }>; rejected: BacktestReport['rejected']; rejectedMore: number; unknownMetrics: Record<string, number> }> {
  const records: Array<{ ms: number; record: ScoreRecord }> = [];
  const rejected: BacktestReport['rejected'] = [];
  let rejectedMore = 0;
  const unknownMetrics: Record<string, number> = {};
  const reject = (line: number, reason: string) => (rejected.length < MAX_REJECTED_LISTED ? rejected.push({ line, reason }) : rejectedMore++);
  let n = 0;
  for await (const text of lines) {
    n++;
    if (text.trim() === '') continue;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      reject(n, `not JSON: ${(err as Error).message}`);
      continue;
    }
    if (raw !== null && typeof raw === 'object') {
      const obj = raw as Record<string, unknown>;
      // `details` is optional in a backtest: only scores, judge, service, weight and timestamp are read.
      if (!('details' in obj)) obj.details = {};
      // A metric ragwatch does not know is left out (counted); the rest of the record is replayed.
      for (const key of ['scores', 'skipped']) {
        const map = obj[key];
        if (map === null || typeof map !== 'object') continue;
        for (const metric of Object.keys(map)) {
          if (registry.has(metric)) continue;
          if (key === 'scores') unknownMetrics[metric] = (unknownMetrics[metric] ?? 0) + 1;
          delete (map as Record<string, unknown>)[metric];
        }
      }
    }
    const parsed = scoreRecordSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      reject(n, `not a score record: key "${issue.path.join('.')}": ${issue.message}`);
      continue;
    }
    const ms = Date.parse(parsed.data.timestamp);
    if (!Number.isFinite(ms)) {
      reject(n, `key "timestamp": not a time (${parsed.data.timestamp})`);
      continue;
    }
    records.push({ ms, record: parsed.data });
  }
  records.sort((a, b) => a.ms - b.ms);
  return { records, rejected, rejectedMore, unknownMetrics };
}

/**
 * Replays the lines of a score file (read as they come) through the alert evaluators of `config`;
 * `onRecords` receives the replayed records in time order (the `--html` picture).
 */
export async function backtest(config: RagwatchConfig, lines: Iterable<string> | AsyncIterable<string>, onRecords?: (records: ReadonlyArray<{ ms: number; record: ScoreRecord }>) => void): Promise<BacktestReport> {
  const { records, rejected, rejectedMore, unknownMetrics } = await readScoreLines(lines, metricRegistryOf(config));
  onRecords?.(records);
  return { ...replay(config, records), rejected, rejectedMore, unknownMetrics };
}

/** Who else watches a replay: each record as it is replayed, and every alert change (firing, resolved) as a notice. */
export interface ReplayObserver {
  onRecord?: (record: ScoreRecord) => void;
  onNotices?: (changed: readonly AlertNotice[]) => void;
}

/**
 * Replays score records, already in timestamp order, through the alert evaluators of `config`. No
 * notification leaves; an `observer` (the history of a backtest-style picture) hears the records and
 * the alert changes, stamped with the simulated clock.
 */
export function replay(config: RagwatchConfig, records: ReadonlyArray<{ ms: number; record: ScoreRecord }>, observer: ReplayObserver = {}): Pick<BacktestReport, 'records' | 'from' | 'to' | 'alerts' | 'releases'> {
  // No notification leaves a backtest, whatever the configuration says.
  const quiet: RagwatchConfig = { ...config, alerts: { ...config.alerts, alertmanager: { ...config.alerts.alertmanager, url: undefined }, webhook: { ...config.alerts.webhook, url: undefined } }, metrics: { ...config.metrics, processMetrics: false } };
  let now = records[0]?.ms ?? 0;
  const clock = () => now;
  const scores = new ScoreMetrics({ config: quiet, instruments: createInstruments(instrumentsOptionsFromConfig(quiet)), now: clock });
  // The quiet configuration has no target: the notifier reaches the observer only.
  if (observer.onNotices) scores.notifier.observe(observer.onNotices);
  const notifier = observer.onNotices ? { notifier: scores.notifier } : {};
  const change = new ChangeMonitor({ ...changeRulesFromConfig(quiet.alerts), now: clock, serviceOf: (r) => scores.serviceOf(r), ...notifier });
  const slo = new SloMonitor({ rules: sloRulesFromConfig(quiet.alerts), now: clock, serviceOf: (r) => scores.serviceOf(r), keepFiringForMs: requireDurationMs(quiet.alerts.keepFiringFor), ...notifier });
  const slices = new SliceMonitor({ ...sliceSettingsFromConfig(quiet.alerts), now: clock, serviceOf: (r) => scores.serviceOf(r), ...notifier });
  const releases = new Map<string, BacktestRelease>();
  const step = quiet.alerts.evaluationIntervalMs;
  const open = new Map<string, { alert: BacktestAlert; startMs: number }>();
  const done = new Map<string, BacktestAlert>();
  const close = (key: string, endMs: number) => {
    const o = open.get(key)!;
    o.alert.firings.push({ start: new Date(o.startMs).toISOString(), end: new Date(endMs).toISOString() });
    open.delete(key);
  };
  const evaluate = () => {
    const firing = new Map<string, Omit<BacktestAlert, 'firings'>>();
    for (const a of scores.evaluator.evaluate()) if (a.state === 'firing') firing.set(`threshold\u0000${a.name}\u0000${a.judge}\u0000${a.service}`, { name: a.name, metric: a.metric, judge: a.judge, service: a.service, severity: a.severity, kind: 'threshold' });
    for (const c of change.evaluate()) firing.set(`change\u0000${c.tier}\u0000${c.metric}\u0000${c.judge}\u0000${c.service}`, { name: changeAlertName(c.metric, c.tier), metric: c.metric, judge: c.judge, service: c.service, severity: c.tier, kind: 'change' });
    for (const s of slices.evaluate()) firing.set(`slice\u0000${s.metric}\u0000${s.judge}\u0000${s.service}\u0000${s.dimension}\u0000${s.slice}`, { name: sliceAlertName(s.metric), metric: s.metric, judge: s.judge, service: s.service, severity: 'page', kind: 'slice', slice: { [s.dimension]: s.slice } });
    for (const r of slices.releases()) {
      for (const rel of r.releases) {
        if (!rel.verdict) continue;
        const key = `${r.service}\u0000${rel.release}`;
        const entry = releases.get(key) ?? { service: r.service, release: rel.release, baseline: r.baseline, verdicts: [] };
        releases.set(key, entry);
        if (entry.verdicts.at(-1)?.verdict !== rel.verdict) entry.verdicts.push({ verdict: rel.verdict, since: new Date(now).toISOString() });
      }
    }
    for (const a of slo.evaluate()) firing.set(`burn_rate\u0000${a.severity}\u0000${a.metric}\u0000${a.judge}\u0000${a.service}`, { name: sloAlertName(a.metric), metric: a.metric, judge: a.judge, service: a.service, severity: a.severity, kind: 'burn_rate' });
    for (const key of [...open.keys()]) if (!firing.has(key)) close(key, now);
    for (const [key, a] of firing) {
      if (open.has(key)) continue;
      const alert = done.get(key) ?? { ...a, firings: [] };
      done.set(key, alert);
      open.set(key, { alert, startMs: now });
    }
  };
  let next = records.length > 0 ? Math.floor(records[0]!.ms / step) * step + step : 0;
  for (const { ms, record } of records) {
    while (next <= ms) {
      now = next;
      evaluate();
      next += step;
    }
    now = ms;
    if (record.origin === 'probe') continue;
    scores.onRecord(record);
    change.onRecord(record);
    slo.onRecord(record);
    slices.onRecord(record);
    observer.onRecord?.(record);
  }
  // One last evaluation after the last record closes what is still firing there.
  if (records.length > 0) {
    now = next;
    evaluate();
    for (const key of [...open.keys()]) close(key, now);
  }
  const last = records.at(-1);
  return {
    records: records.length,
    from: records[0] ? new Date(records[0].ms).toISOString() : null,
    to: last ? new Date(last.ms).toISOString() : null,
    alerts: [...done.values()].sort((a, b) => a.firings[0]!.start.localeCompare(b.firings[0]!.start) || a.name.localeCompare(b.name)),
    releases: [...releases.values()],
  };
}
