/**
 * Prometheus series of the scheduled probes (DESIGN §13). Labels are bounded by configuration: suite
 * and template names come from suite files, metric and judge names from ragwatch's own lists. Ratios
 * of the last completed run are absent (not 0) while undefined, e.g. robustness with every group a gap.
 * @module
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ProbeReport } from './runner.ts';
import type { ProbeSuite } from './suite.ts';

/** The probe series on one registry. */
export class ProbeInstruments {
  readonly runs: Counter<'suite' | 'status'>;
  readonly queries: Counter<'suite' | 'template' | 'outcome'>;
  readonly failures: Counter<'suite' | 'template' | 'module'>;
  readonly accuracy: Gauge<'suite'>;
  readonly robustness: Gauge<'suite'>;
  readonly errorRatio: Gauge<'suite'>;
  readonly groups: Gauge<'suite' | 'template' | 'kind'>;
  readonly judgePrecision: Gauge<'suite' | 'metric' | 'judge'>;
  readonly judgeRecall: Gauge<'suite' | 'metric' | 'judge'>;
  readonly judgeAudited: Gauge<'suite' | 'metric' | 'judge'>;
  readonly lastRun: Gauge<'suite'>;
  readonly since: Gauge<'suite'>;
  readonly schedule: Gauge<'suite'>;
  readonly minAccuracy: Gauge<'suite'>;
  readonly minRobustness: Gauge<'suite'>;
  readonly maxErrorRatio: Gauge<'suite'>;
  readonly alertActive: Gauge<'suite' | 'alert' | 'severity'>;
  readonly durationSeconds: Gauge<'suite'>;
  readonly info: Gauge<'suite' | 'severity'>;

  constructor(registry: Registry) {
    const registers = [registry];
    const counter = <L extends string>(name: string, help: string, labelNames: L[]) => new Counter<L>({ name, help, labelNames, registers });
    const gauge = <L extends string>(name: string, help: string, labelNames: L[]) => new Gauge<L>({ name, help, labelNames, registers });
    this.runs = counter('ragwatch_probe_runs_total', 'Scheduled probe runs by suite and status (completed, failed: the suite could not be run, skipped_overlap: the previous run was still going).', ['suite', 'status']);
    this.queries = counter('ragwatch_probe_queries_total', 'Probe queries asked, by suite, template and outcome (correct, wrong, abstained, error).', ['suite', 'template', 'outcome']);
    this.failures = counter('ragwatch_probe_failures_total', 'Wrong or abstained probe answers by the module they are attributed to (retrieval, generator, unknown).', ['suite', 'template', 'module']);
    this.accuracy = gauge('ragwatch_probe_accuracy_ratio', 'Last completed run: correct / answered probe queries (absent when nothing was answered).', ['suite']);
    this.robustness = gauge('ragwatch_probe_robustness_ratio', 'Last completed run: robustness R = correct / (answered − instances of gap groups), GRAMMAR eq. 1 (absent when undefined).', ['suite']);
    this.errorRatio = gauge('ragwatch_probe_error_ratio', 'Last completed run: share of probe queries the service did not answer (timeout, HTTP error, no answer at answerPath).', ['suite']);
    this.groups = gauge('ragwatch_probe_groups', 'Last completed run: groups (every wording of one filled question) by kind: gap (none correct), robust (all), non_robust (some).', ['suite', 'template', 'kind']);
    this.judgePrecision = gauge('ragwatch_probe_judge_precision_ratio', 'Last completed run: of the probe answers a metric scored below its threshold, the share that were wrong (absent when none was flagged).', ['suite', 'metric', 'judge']);
    this.judgeRecall = gauge('ragwatch_probe_judge_recall_ratio', 'Last completed run: of the wrong probe answers, the share the metric scored below its threshold (absent when none was wrong).', ['suite', 'metric', 'judge']);
    this.judgeAudited = gauge('ragwatch_probe_judge_audited', 'Last completed run: answered probes with a score of the metric (the judge audit sample size).', ['suite', 'metric', 'judge']);
    this.lastRun = gauge('ragwatch_probe_last_run_timestamp_seconds', 'End of the last completed run of the suite, Unix seconds.', ['suite']);
    this.since = gauge('ragwatch_probe_scheduled_since_timestamp_seconds', 'When this process started scheduling the suite, Unix seconds (the stale alert counts from here until a run completes).', ['suite']);
    this.schedule = gauge('ragwatch_probe_schedule_seconds', "The suite's schedule period (schedule.every), seconds.", ['suite']);
    this.minAccuracy = gauge('ragwatch_probe_min_accuracy_ratio', "The suite's alerts.minAccuracy.", ['suite']);
    this.minRobustness = gauge('ragwatch_probe_min_robustness_ratio', "The suite's alerts.minRobustness.", ['suite']);
    this.maxErrorRatio = gauge('ragwatch_probe_max_error_ratio', "The suite's alerts.maxErrorRatio.", ['suite']);
    this.alertActive = gauge('ragwatch_probe_alert_active', 'In-process evaluator: 1 while the probe alert is firing for the suite.', ['suite', 'alert', 'severity']);
    this.info = gauge('ragwatch_probe_suite_info', "1 per scheduled suite, with its alerts.severity (the generated probe alerts take their severity label from here).", ['suite', 'severity']);
    this.durationSeconds = gauge('ragwatch_probe_run_duration_seconds', 'Wall time of the last completed run, including the wait for the service traces.', ['suite']);
  }

  /** Publishes a suite's configuration (schedule and thresholds) when scheduling starts. */
  describe(suite: ProbeSuite, periodMs: number, nowMs: number): void {
    const s = { suite: suite.suite };
    this.info.set({ ...s, severity: suite.alerts.severity }, 1);
    this.since.set(s, nowMs / 1000);
    this.schedule.set(s, periodMs / 1000);
    this.minAccuracy.set(s, suite.alerts.minAccuracy);
    this.minRobustness.set(s, suite.alerts.minRobustness);
    this.maxErrorRatio.set(s, suite.alerts.maxErrorRatio);
    this.runs.inc({ ...s, status: 'completed' }, 0);
  }

  /** Records a completed run. */
  record(report: ProbeReport, perTemplate: ReadonlyMap<string, { outcomes: Record<string, number>; failures: Record<string, number> }>, nowMs: number, durationMs: number): void {
    const suite = report.suite;
    this.runs.inc({ suite, status: 'completed' });
    for (const [template, t] of perTemplate) {
      for (const [outcome, n] of Object.entries(t.outcomes)) this.queries.inc({ suite, template, outcome }, n);
      for (const [module, n] of Object.entries(t.failures)) this.failures.inc({ suite, template, module }, n);
    }
    setOrRemove(this.accuracy, { suite }, report.accuracy);
    setOrRemove(this.robustness, { suite }, report.robustness);
    setOrRemove(this.errorRatio, { suite }, report.queries === 0 ? null : report.outcomes.error / report.queries);
    for (const t of report.templates) for (const [kind, n] of Object.entries(t.groups)) this.groups.set({ suite, template: t.name, kind }, n);
    for (const j of report.judges) {
      setOrRemove(this.judgePrecision, { suite, metric: j.metric, judge: j.judge }, j.precision);
      setOrRemove(this.judgeRecall, { suite, metric: j.metric, judge: j.judge }, j.recall);
      this.judgeAudited.set({ suite, metric: j.metric, judge: j.judge }, j.n);
    }
    this.lastRun.set({ suite }, nowMs / 1000);
    this.durationSeconds.set({ suite }, durationMs / 1000);
  }
}

function setOrRemove<L extends string>(gauge: Gauge<L>, labels: Record<L, string>, value: number | null): void {
  if (value === null) gauge.remove(labels);
  else gauge.set(labels, value);
}
