/**
 * The in-process evaluator of the probe alerts, with the generated rules' semantics
 * ({@link probeRuleGroup}): the last completed run's accuracy or robustness below the suite's
 * minimum, its error share above the maximum, or no completed run for 3 schedule periods. A run is a
 * measurement over many queries, so an alert fires at once (no `for`). Firing and resolved alerts
 * go to Alertmanager / the webhook like the metric alerts.
 * @module
 */
import type { AlertNotice, AlertNotifier } from '../metrics/notifier.ts';
import type { ProbeInstruments } from './metrics.ts';
import type { ProbeReport } from './runner.ts';
import type { ProbeSuite } from './suite.ts';

/** Names of the probe alerts (also the generated rules' `alert`). */
export const PROBE_ALERTS = ['RagwatchProbeAccuracyLow', 'RagwatchProbeRobustnessLow', 'RagwatchProbeErrorsHigh', 'RagwatchProbeStale'] as const;
export type ProbeAlertName = (typeof PROBE_ALERTS)[number];

/** Schedule periods without a completed run before {@link PROBE_ALERTS} `RagwatchProbeStale` fires. */
export const STALE_PERIODS = 3;

/** What the evaluator knows about one suite. */
export interface SuiteState {
  suite: ProbeSuite;
  periodMs: number;
  sinceMs: number;
  lastCompletedMs?: number;
  last?: ProbeReport;
}

function conditions(s: SuiteState, nowMs: number): Array<{ alert: ProbeAlertName; summary: string; value: number }> {
  const out: Array<{ alert: ProbeAlertName; summary: string; value: number }> = [];
  const { alerts } = s.suite;
  const r = s.last;
  if (r?.accuracy != null && r.accuracy < alerts.minAccuracy) out.push({ alert: 'RagwatchProbeAccuracyLow', value: r.accuracy, summary: `probe accuracy ${r.accuracy.toFixed(2)} < ${alerts.minAccuracy} for suite ${s.suite.suite}` });
  if (r?.robustness != null && r.robustness < alerts.minRobustness) out.push({ alert: 'RagwatchProbeRobustnessLow', value: r.robustness, summary: `probe robustness R ${r.robustness.toFixed(2)} < ${alerts.minRobustness} for suite ${s.suite.suite}` });
  const errors = r && r.queries > 0 ? r.outcomes.error / r.queries : undefined;
  if (errors !== undefined && errors > alerts.maxErrorRatio) out.push({ alert: 'RagwatchProbeErrorsHigh', value: errors, summary: `${(errors * 100).toFixed(0)} % of the probe queries of suite ${s.suite.suite} got no answer (max ${alerts.maxErrorRatio * 100} %)` });
  const ageMs = nowMs - (s.lastCompletedMs ?? s.sinceMs);
  if (ageMs > STALE_PERIODS * s.periodMs) out.push({ alert: 'RagwatchProbeStale', value: ageMs / 1000, summary: `no probe run of suite ${s.suite.suite} completed for ${Math.round(ageMs / 1000)} s (${STALE_PERIODS} × schedule ${s.suite.schedule.every})` });
  return out;
}

/** Evaluates the probe alerts of every suite; keeps which fire. */
export class ProbeAlerts {
  readonly #firing = new Map<string, AlertNotice>();
  readonly #instruments: ProbeInstruments;
  readonly #notifier: AlertNotifier | undefined;
  readonly #intervalMs: number;

  constructor(options: { instruments: ProbeInstruments; notifier?: AlertNotifier; intervalMs?: number }) {
    this.#instruments = options.instruments;
    this.#notifier = options.notifier;
    this.#intervalMs = options.intervalMs ?? 15_000;
  }

  /** The alerts firing at the last evaluation. */
  firing(): AlertNotice[] {
    return [...this.#firing.values()];
  }

  /** Evaluates every suite now; returns the firing alerts. */
  evaluate(states: Iterable<SuiteState>, nowMs: number): AlertNotice[] {
    const changed: AlertNotice[] = [];
    const seen = new Set<string>();
    for (const s of states) {
      const held = new Map(conditions(s, nowMs).map((c) => [c.alert, c]));
      for (const alert of PROBE_ALERTS) {
        const key = `${s.suite.suite}\u0000${alert}`;
        const c = held.get(alert);
        const labels = { suite: s.suite.suite, alert, severity: s.suite.alerts.severity };
        this.#instruments.alertActive.set(labels, c ? 1 : 0);
        const before = this.#firing.get(key);
        if (c) {
          seen.add(key);
          const notice: AlertNotice = {
            status: 'firing',
            labels: { alertname: alert, suite: s.suite.suite, severity: s.suite.alerts.severity, source: 'ragwatch' },
            annotations: { summary: c.summary, value: c.value.toFixed(3) },
            startsAt: before?.startsAt ?? new Date(nowMs).toISOString(),
            endsAt: new Date(nowMs + 4 * this.#intervalMs).toISOString(),
            generatorURL: '',
          };
          this.#firing.set(key, notice);
          if (!before) changed.push(notice);
        }
      }
    }
    const resolved: AlertNotice[] = [];
    for (const [key, notice] of this.#firing) {
      if (seen.has(key)) continue;
      this.#firing.delete(key);
      resolved.push({ ...notice, status: 'resolved', endsAt: new Date(nowMs).toISOString() });
    }
    const firing = [...this.#firing.values()];
    if (this.#notifier?.enabled) this.#notifier.send([...firing, ...resolved], [...changed, ...resolved]);
    return firing;
  }
}
