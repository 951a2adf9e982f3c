import { z } from 'zod';
import { BUILTIN_METRICS } from '../../metric-registry.ts';
import { METRIC_NAME_PATTERN } from '../../triplet.ts';

/** A Prometheus duration with one unit (`30s`, `10m`, `1h`, `500ms`), as rules and `for:` need it. */
export const promDuration = z
  .string()
  .regex(/^[1-9][0-9]*(ms|s|m|h|d|w)$/, 'a Prometheus duration with one unit, e.g. "30s", "10m", "1h"');

/** Alert and diagnosis settings of one judge metric. */
export const metricAlertSchema = z
  .object({
    /** Windowed weighted mean below this is "low" (alert, diagnosis). Required, in [0,1]. */
    threshold: z.number().min(0).max(1),
    /** Generate an alert for this metric; `false` keeps it for diagnosis only. Default true. */
    alert: z.boolean().default(true),
    /** Rolling window of the mean and the sample count. Default `30m`. */
    window: promDuration.default('30m'),
    /** Judged samples needed in the window before the alert may fire. Default 20. */
    minSamples: z.number().int().positive().default(20),
    /** How long the condition must hold before firing (`for:`). Default `10m`. */
    for: promDuration.default('10m'),
    /** `keep_firing_for:` (anti-flap on recovery); unset = `alerts.keepFiringFor`; `"0s"` omits it. */
    keepFiringFor: z.union([promDuration, z.literal('0s')]).optional(),
    /** `severity` label. Default `warning`. */
    severity: z.string().regex(/^[a-z][a-z0-9_]*$/).default('warning'),
    /** Optional `runbook_url` annotation. */
    runbookUrl: z.string().url().optional(),
    /**
     * `raw` (default): alert on the judge score. `calibrated`: alert on the calibrated probability that a
     * person calls the answer good (needs a calibration, docs/calibration.md); `threshold` is then that probability.
     */
    on: z.enum(['raw', 'calibrated']).default('raw'),
    /**
     * Change alert on this metric (`alerts.change`): the share of answers scoring at or below `threshold`
     * against the series' own baseline. Unset = on for `severity: page`, off otherwise.
     */
    change: z.boolean().optional(),
    /**
     * Quality SLO (optional): the share of answers scoring above `threshold` should be at least `objective`
     * over `period` (default `30d`). Adds multiwindow multi-burn-rate alerts (page: 14.4× over 1h and 5m,
     * 6× over 6h and 30m; ticket: 1× over 3d and 6h) and `ragwatch_slo_error_budget_remaining_ratio`.
     */
    slo: z
      .object({
        objective: z.number().gt(0).lt(1).describe('Share of answers that must score above the threshold, e.g. 0.95.'),
        period: promDuration.default('30d').describe('SLO period of the error budget.'),
      })
      .strict()
      .optional(),
  })
  .strict();

/** One tier of change alerts: its windows and minimum effect (described with `.describe()`: the docs generator reads no JSDoc inside a function). */
function changeTier(d: { window: string; shortWindow: string; baseline: string; minRatio: number; minIncrease: number }) {
  return z
    .object({
      enabled: z.boolean().default(true).describe('Generate this tier (rules and in-process evaluation).'),
      window: promDuration.default(d.window).describe('Long recent window (meaning): the drop must hold over it.'),
      shortWindow: promDuration.default(d.shortWindow).describe('Short recent window (freshness, fast reset): the drop must also hold over it.'),
      baseline: promDuration.default(d.baseline).describe('Trailing baseline, ending where the long window starts.'),
      minRatio: z.number().min(1).default(d.minRatio).describe("Material: the recent share of flagged answers at least this many times the baseline's."),
      minIncrease: z.number().min(0).max(1).default(d.minIncrease).describe('Material: … and at least this much higher (a share, 0.05 = 5 points).'),
    })
    .strict();
}

/** Change alerts: a recent window significantly and materially worse than the same series' own baseline (docs/alerts.md). */
const changeSchema = z
  .object({
    /** Judged answers the baseline needs before the series may fire ("no baseline yet" until then). Default 1000 (2 h at 0.2/s). */
    minBaselineSamples: z.number().int().positive().default(1_000),
    /** Judged answers the long window needs. Default 20. */
    minSamples: z.number().int().positive().default(20),
    /** One-sided z of the two-proportion test, on both windows (about 3·10⁻⁵ per evaluation at 4). Default 4. */
    z: z.number().positive().default(4),
    /** Pages a sudden drop: 30m and 5m against the day before (2× and +5 points). */
    page: changeTier({ window: '30m', shortWindow: '5m', baseline: '1d', minRatio: 2, minIncrease: 0.05 }).prefault({}),
    /** Tickets a slow drift: 6h and 30m against the week before (1.5× and +3 points). */
    ticket: changeTier({ window: '6h', shortWindow: '30m', baseline: '7d', minRatio: 1.5, minIncrease: 0.03 }).prefault({}),
  })
  .strict();

/** The dimensions a service's answers are sliced by (DESIGN §19): release (`service.version`), route, generation model. */
export const SLICE_DIMENSIONS = ['release', 'route', 'model'] as const;

/** Slice alerts: a drop confined to one release, route or model, tested on counts (docs/alerts.md). */
const slicesSchema = z
  .object({
    enabled: z.boolean().default(true).describe('Test slices of every metric with a change alert (in process: `ragwatch start`, or the `ragwatch slices` role in split mode).'),
    dimensions: z.array(z.enum(SLICE_DIMENSIONS)).default([...SLICE_DIMENSIONS]).describe('Dimensions to slice by.'),
    maxReleases: z.number().int().positive().max(50).default(5).describe('Releases tracked per service (the rest count as `other`); a release idle for `idle` gives its place up.'),
    maxRoutes: z.number().int().positive().max(100).default(10).describe('Routes tracked per service (the rest count as `other`).'),
    maxModels: z.number().int().positive().max(50).default(5).describe('Generation models tracked per service (the rest count as `other`).'),
    falsePagesPer30Days: z.number().positive().default(1).describe('False-page budget of all slices of one service together, per 30 days: sets each CUSUM threshold from the service traffic.'),
    shift: z.number().gt(0).lt(1).default(0.4).describe('The rise of the flagged share the CUSUM is tuned to detect fastest (p1 = max(minRatio · p0, p0 + shift)).'),
    minRatio: z.number().min(1).default(2).describe('… and at least this many times the reference share.'),
    baseline: promDuration.default('1d').describe("A slice's own baseline, ending where `recent` starts."),
    recent: promDuration.default('3h').describe('The concurrent window: a slice without an own baseline (a new release) is compared with the rest of its service over the same steps, at most this far back.'),
    minBaselineSamples: z.number().int().positive().default(300).describe("Answers a slice's own baseline needs; until then it is compared concurrently."),
    minReferenceSamples: z.number().int().positive().default(200).describe('Answers the concurrent reference (the rest of the service) needs; until then the slice is not tested.'),
    maxShare: z.number().gt(0).max(1).default(0.9).describe("A slice holding more than this share of its service's recent answers is not tested (the service-wide change alert covers it)."),
    idle: promDuration.default('1h').describe('A slice without answers this long may give its place to a new value.'),
  })
  .strict();

/** Release comparison for deploy gates: `ragwatch release compare`, `/api/releases`, `ragwatch_release_verdict`. */
const releasesSchema = z
  .object({
    window: promDuration.default('6h').describe('Live: releases with answers in this window are compared, each candidate with the baseline (the release with most answers) since the candidate appeared.'),
    margin: z.number().gt(0).lt(1).default(0.05).describe('Non-inferiority margin: "no_worse" once the upper bound of (candidate − baseline flagged share) is below it.'),
    alphaWorse: z.number().gt(0).lt(0.5).default(0.001).describe('One-sided α of "worse", split over the metrics (Bonferroni); small because the live verdict is re-evaluated.'),
    alphaNoWorse: z.number().gt(0).lt(0.5).default(0.05).describe('One-sided α of "no_worse" (the non-inferiority test).'),
    minRatio: z.number().min(1).default(2).describe('Material: "worse" needs the candidate share this many times the baseline\'s …'),
    minIncrease: z.number().min(0).max(1).default(0.05).describe('… and this much higher.'),
    minSamples: z.number().int().positive().default(20).describe('Answers each release needs before a verdict other than inconclusive.'),
  })
  .strict();

const notifierSchema = z
  .object({
    /** Base URL (Alertmanager: `http://host:9093`, alerts are POSTed to `/api/v2/alerts`; webhook: full URL). */
    url: z.string().url().optional(),
    /** Per-request timeout, milliseconds. Default 5000. */
    timeoutMs: z.number().int().positive().default(5_000),
  })
  .strict();

/**
 * Default per-metric thresholds: an alert for every built-in metric a judge emits, from the metric
 * registry's definitions (`metric-registry.ts`: `page` for the groundedness-type metrics, `ticket` for
 * retrieval and style). Configured evaluators carry their own (`evaluators[].alerts`).
 */
export const DEFAULT_ALERT_METRICS: Readonly<Record<string, { threshold: number; severity: string }>> = Object.fromEntries(
  BUILTIN_METRICS.map((m) => [m.name, { threshold: m.alertDefaults.threshold, severity: m.alertDefaults.severity }]),
);

/** Threshold alerts (generated Prometheus rules and the in-process evaluator) and diagnosis. */
export const alertsSection = z
  .object({
    /**
     * Per built-in metric (a name of the metric registry, `metric-registry.ts`): threshold and alert
     * settings. Replaces the defaults when given. An evaluator's are its own `evaluators[].alerts`,
     * merged in here when the config loads.
     */
    metrics: z
      .record(z.string().regex(METRIC_NAME_PATTERN, 'a metric name'), metricAlertSchema)
      .prefault(() => structuredClone(DEFAULT_ALERT_METRICS) as Record<string, { threshold: number; severity: string }>),
    /** Change alerts against each series' own baseline (on for page-severity metrics unless a metric says `change: false`). */
    change: changeSchema.prefault({}),
    /** Slice alerts: drops inside one release, route or model, with the false-page budget held per service. */
    slices: slicesSchema.prefault({}),
    /** Release comparison (canary analysis) for deploy gates. */
    releases: releasesSchema.prefault({}),
    /** Default `keep_firing_for:`; `"0s"` omits the field (Prometheus < 2.42 rejects it). Default `5m`. */
    keepFiringFor: z.union([promDuration, z.literal('0s')]).default('5m'),
    /** Evaluation interval of the generated rule groups. Default `30s`. */
    ruleInterval: promDuration.default('30s'),
    /** Base URL of the examples page linked from annotations (e.g. the ingress of `/examples`); unset = `http://<server.host>:<server.httpPort>`. */
    examplesUrl: z.string().url().optional(),
    /** Run the in-process evaluator (drives `ragwatch_alert_active`). Default true. */
    evaluate: z.boolean().default(true),
    /** In-process evaluation interval, milliseconds. Default 15000. */
    evaluationIntervalMs: z.number().int().positive().default(15_000),
    /** Push in-process alerts to Alertmanager's `/api/v2/alerts` (firing, re-sent each evaluation, and resolved). */
    alertmanager: notifierSchema.prefault({}),
    /** POST in-process alert changes (firing and resolved) as Alertmanager-webhook-shaped JSON to this URL. */
    webhook: notifierSchema.prefault({}),
  })
  .strict();
