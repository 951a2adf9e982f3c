/**
 * Metrics and API port: `/metrics` (Prometheus text, or OpenMetrics with exemplars when asked),
 * `/healthz` (process alive), `/readyz` (judge loaded, transport delivering) — open, for scrapers and
 * probes — and the UI, behind {@link uiAuth}: the front door `/`, the pages (`/examples`, `/review`,
 * `/calibration`, `/weaknesses`, `/probes`, `/exams`), their JSON under `/api/*`, and `/login`. With
 * `server.uiPort` the UI has a port of its own ({@link createUiApp}).
 * @module
 */
import { Hono } from 'hono';
import type { Registry } from 'prom-client';
import type { CalibrationMonitor } from '../calibration/monitor.ts';
import type { Refitter } from '../calibration/refit.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import type { ExamMonitor } from '../exams/monitor.ts';
import type { FeedbackView } from '../feedback/types.ts';
import type { MetricAlertRule } from '../metrics/evaluator.ts';
import type { ExamplesBuffer, ExamplesQuery } from '../metrics/examples.ts';
import type { QualityStatus } from '../metrics/score-metrics.ts';
import type { ChangeSeriesStatus } from '../change/monitor.ts';
import type { SliceStatus } from '../slices/types.ts';
import type { SloAlert } from '../slo/monitor.ts';
import type { SliceView } from './releases-section.ts';
import { accountingSnapshot } from '../metrics/accounting.ts';
import { judgeFailureCounts } from '../metrics/judge-failures.ts';
import type { ProbeRuns, SuiteRuns } from '../probes/run-view.ts';
import { renderHomePage, type FrontDoor } from './home-page.ts';
import { newNonce, pageHeaders } from './layout.ts';
import { renderProbesPage } from './probes-page.ts';
import type { ReviewStore } from '../store/review-store.ts';
import type { WeaknessView } from '../weakness/monitor.ts';
import { mountReview } from './review-routes.ts';
import { renderWeaknessesPage } from './weaknesses-page.ts';
import { renderExamsPage } from './exams-page.ts';
import { OPENMETRICS_CONTENT_TYPE, openMetrics, wantsOpenMetrics } from '../metrics/openmetrics.ts';
import { renderExamplesPage } from './examples-page.ts';
import { uiAuth, type UiAuthOptions } from './ui-auth.ts';
import type { HistoryView } from '../history/types.ts';
import { metricRegistryOf, type MetricRegistry } from '../metric-registry.ts';
import { historyRange, renderHistoryPage } from './history-section.ts';
import { mountSeries } from './series-route.ts';
import { mountAnswers } from './answer-routes.ts';
import type { AnswerSources } from './answer-view.ts';

/** What the UI pages read: the consumers of score records a scoring role wired (its `QualityMonitor`). */
export interface UiSources {
  readonly settings: Readonly<RagwatchConfig>;
  readonly rules: readonly MetricAlertRule[];
  readonly examples: ExamplesBuffer;
  readonly review: ReviewStore | undefined;
  readonly calibration: CalibrationMonitor | undefined;
  readonly refitter: Refitter | undefined;
  readonly exams: ExamMonitor | undefined;
  /** End users' feedback and its join with the verdicts; absent where feedback is off. */
  readonly feedback?: FeedbackView | undefined;
  /** Slice alerts and live release verdicts; absent where the `ragwatch slices` role runs them. */
  readonly slices: SliceView | undefined;
  /** Quality over time (the front door's charts, `/api/series`); absent where another process keeps it. */
  readonly history?: HistoryView | undefined;
  status(): QualityStatus & { change?: ChangeSeriesStatus[]; slo?: SloAlert[]; slices?: SliceStatus[] };
  weaknessView(): WeaknessView;
}

/** Options of {@link createApiApp}; `registry` and `ready` are required. */
export interface ApiAppOptions {
  registry: Registry;
  /** Readiness probe: true when the judge is loaded and the transport is delivering. */
  ready: () => boolean;
  /** Windowed means, alerts, diagnosis and examples; without it `/api/*` and `/examples` answer 404. */
  quality?: UiSources;
  /** Configuration summary for `/api/status` (must hold no secrets). */
  summary?: () => Record<string, unknown>;
  /** Who may see the UI routes. Default: open, as on a loopback address without a token. */
  auth?: UiAuthOptions;
  /** The scheduled prober's runs (`/probes`, `/api/probes`, the front door); absent without suites. */
  probes?: ProbeRuns | undefined;
  /** Slice alerts and release verdicts without a quality monitor (the `ragwatch slices` role). */
  slices?: SliceView | undefined;
  /** The history without a quality monitor (the `ragwatch slices` role): `/` draws it, `/api/series` serves it. */
  history?: HistoryView | undefined;
  /** The metrics `/api/series` answers for without a quality monitor (its configuration's registry). Default: the built-ins. */
  metrics?: MetricRegistry | undefined;
  /** `server.traceUrlTemplate`: the pages link trace ids to the tracing backend. Default: the quality monitor's configuration's. */
  traceUrlTemplate?: string | undefined;
  /** The trail and the judged answers of this process: `/answers/<traceId>` and `/api/answers/*` (docs/answers.md). */
  answers?: Omit<AnswerSources, 'feedbackOf' | 'labelsOf' | 'thresholds'> | undefined;
}

/** Largest `limit` accepted by `/api/examples`. */
const MAX_LIMIT = 200;

function parseQuery(q: (key: string) => string | undefined): ExamplesQuery | string {
  const out: ExamplesQuery = { limit: 20 };
  const metric = q('metric');
  if (metric !== undefined && metric !== '') {
    if (!/^[a-z][a-z0-9_]{0,63}$/.test(metric)) return 'metric must be a metric name like "groundedness"';
    out.metric = metric;
  }
  // `from` (or `since`) and `to`: a window of the history charts, milliseconds since the epoch or RFC 3339.
  for (const key of ['since', 'from', 'to'] as const) {
    const v = q(key);
    if (v === undefined || v === '') continue;
    const n = /^[0-9]+$/.test(v) ? Number(v) : /^[0-9]{4}-[0-9]{2}-[0-9]{2}T/.test(v) ? Date.parse(v) : NaN;
    if (!Number.isSafeInteger(n) || n < 0) return `${key} must be a time: milliseconds since the epoch or RFC 3339 (2026-01-31T12:00:00Z)`;
    if (key === 'to') out.untilMs = n;
    else out.sinceMs = Math.max(out.sinceMs ?? 0, n);
  }
  if (out.sinceMs !== undefined && out.untilMs !== undefined && out.sinceMs >= out.untilMs) return 'from must be before to';
  const below = q('below');
  if (below !== undefined && below !== '') {
    const n = Number(below);
    if (!Number.isFinite(n) || n < 0 || n > 1) return 'below must be a number in [0,1]';
    out.below = n;
  }
  const service = q('service');
  if (service !== undefined && service !== '') out.service = service;
  for (const key of ['release', 'route', 'model'] as const) {
    const v = q(key);
    if (v === undefined || v === '') continue;
    if (v.length > 256) return `${key} must be at most 256 characters`;
    out[key] = v;
  }
  const conversation = q('conversation');
  if (conversation !== undefined && conversation !== '') {
    if (conversation.length > 256) return 'conversation must be a conversation id (at most 256 characters)';
    out.conversation = conversation;
  }
  const ids = q('ids');
  if (ids !== undefined && ids !== '') {
    const list = ids.split(',');
    if (list.length > MAX_LIMIT || list.some((id) => id.length === 0 || id.length > 128)) return `ids must be at most ${MAX_LIMIT} comma-separated triplet ids`;
    out.ids = list;
  }
  const limit = q('limit');
  if (limit !== undefined && limit !== '') {
    const n = Number(limit);
    if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) return `limit must be an integer in [1,${MAX_LIMIT}]`;
    out.limit = n;
  }
  return out;
}

/** Builds the metrics/API app: the open probe routes and, with `quality`, the protected UI routes. */
export function createApiApp(options: ApiAppOptions): Hono {
  const app = createMetricsApp(options);
  if (options.quality) mountUi(app, options.quality, options);
  else if (options.probes) mountProbes(app, options.probes, options.auth, options.traceUrlTemplate);
  else if (options.slices) mountSlices(app, options.slices, options.auth, options.history, options.metrics);
  else if (options.answers) mountAnswersAlone(app, options.answers, options.auth, options.traceUrlTemplate);
  return app;
}

/** The UI routes alone (for `server.uiPort`). */
export function createUiApp(options: Omit<ApiAppOptions, 'registry'> & { quality: UiSources; registry?: Registry }): Hono {
  const app = new Hono();
  mountUi(app, options.quality, options);
  return app;
}

/** The last runs of each suite, short (for `/api/status`). */
function probeSummary(runs: readonly SuiteRuns[]) {
  return runs.map((s) => ({
    suite: s.suite,
    every: s.every,
    last: s.last ? { completedAt: s.last.completedAt, queries: s.last.report.queries, accuracy: s.last.report.accuracy, robustness: s.last.report.robustness, outcomes: s.last.report.outcomes } : null,
    previous: s.previous ? { completedAt: s.previous.completedAt, accuracy: s.previous.report.accuracy, robustness: s.previous.report.robustness } : null,
  }));
}

/** `/probes` and `/api/probes` alone, behind the UI's authentication (the `ragwatch prober` role); `/` leads there. */
function mountProbes(app: Hono, probes: ProbeRuns, auth: UiAuthOptions | undefined, traceUrlTemplate: string | undefined): void {
  const { guard, loginLimit, login } = uiAuth(auth ?? { host: '127.0.0.1' });
  app.get('/login', login);
  app.post('/login', loginLimit, login);
  for (const path of ['/', '/probes', '/api/*']) app.use(path, guard);
  app.get('/', (c) => c.redirect('/probes', 303));
  app.get('/probes', (c) => c.html(renderProbesPage(probes.runs(), { traceUrlTemplate }), 200, pageHeaders()));
  app.get('/api/probes', (c) => c.json({ suites: probes.runs() }));
}

/** `/api/releases` and `/api/slices` alone, behind the UI's authentication (the `ragwatch slices` role), and with a history its charts at `/`. */
function mountSlices(app: Hono, slices: SliceView, auth: UiAuthOptions | undefined, history: HistoryView | undefined, metrics: MetricRegistry | undefined): void {
  const { guard, loginLimit, login } = uiAuth(auth ?? { host: '127.0.0.1' });
  app.get('/login', login);
  app.post('/login', loginLimit, login);
  app.use('/api/*', guard);
  if (history) {
    app.use('/', guard);
    app.get('/', (c) => {
      const nonce = newNonce();
      return c.html(renderHistoryPage(history, { nowMs: Date.now(), range: historyRange(c.req.query('range')), releases: slices.releases(), nonce }), 200, pageHeaders({ nonce }));
    });
    mountSeries(app, history, () => (metrics ?? metricRegistryOf({})).names());
  }
  app.get('/api/releases', (c) => c.json({ services: slices.releases() }));
  app.get('/api/slices', (c) => c.json({ slices: slices.status() }));
}

/** `/answers/<traceId>` and `/api/answers/*` alone, behind the UI's authentication (the `ragwatch assembler` role's part of the trail). */
function mountAnswersAlone(app: Hono, answers: NonNullable<ApiAppOptions['answers']>, auth: UiAuthOptions | undefined, traceUrlTemplate: string | undefined): void {
  const { guard, loginLimit, login } = uiAuth(auth ?? { host: '127.0.0.1' });
  app.get('/login', login);
  app.post('/login', loginLimit, login);
  for (const path of ['/api/*', '/answers', '/answers/*']) app.use(path, guard);
  mountAnswers(app, () => answers, traceUrlTemplate);
}

/** Sums a gauge's values, or undefined when it has none. */
async function gaugeSum(registry: Registry, name: string, labels: Readonly<Record<string, string>> = {}): Promise<number | undefined> {
  const values = ((await registry.getSingleMetric(name)?.get())?.values ?? []).filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want));
  return values.length === 0 ? undefined : values.reduce((a, v) => a + v.value, 0);
}

/** The front door's data: all of it already in memory (the registry's few counters are read by name). */
async function frontDoorOf(quality: UiSources, options: Pick<ApiAppOptions, 'ready' | 'probes'> & { registry?: Registry | undefined }): Promise<FrontDoor> {
  const registry = options.registry;
  const [size, capacity, lag] = registry ? await Promise.all([gaugeSum(registry, 'ragwatch_queue_size', { stage: 'transport' }), gaugeSum(registry, 'ragwatch_queue_capacity', { stage: 'transport' }), gaugeSum(registry, 'ragwatch_kafka_consumer_lag_messages')]) : [];
  return {
    nowMs: Date.now(),
    ready: options.ready(),
    status: quality.status(),
    releases: quality.slices?.releases() ?? [],
    alerting: new Set(quality.rules.map((r) => r.metric)),
    probes: options.probes?.runs() ?? [],
    probeAlerts: options.probes?.firing() ?? [],
    calibrations: quality.calibration?.models() ?? [],
    exams: quality.exams?.reports() ?? [],
    ...(registry ? { accounting: await accountingSnapshot(registry), judgeFailures: await judgeFailureCounts(registry) } : {}),
    ...(size !== undefined && capacity !== undefined ? { queue: { size, capacity } } : {}),
    ...(lag !== undefined ? { lagMessages: lag } : {}),
  };
}

/** `/metrics`, `/healthz`, `/readyz`: no authentication (Prometheus and kubelet probes). */
export function createMetricsApp(options: Pick<ApiAppOptions, 'registry' | 'ready'>): Hono {
  const app = new Hono();
  app.get('/metrics', async (c) => {
    if (wantsOpenMetrics(c.req.header('accept'))) {
      return c.body(await openMetrics(options.registry), 200, { 'Content-Type': OPENMETRICS_CONTENT_TYPE });
    }
    const body = await options.registry.metrics();
    return c.body(body, 200, { 'Content-Type': options.registry.contentType });
  });
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) => (options.ready() ? c.json({ status: 'ready' }) : c.json({ status: 'starting' }, 503)));
  return app;
}

function mountUi(app: Hono, quality: UiSources, options: Pick<ApiAppOptions, 'ready' | 'summary' | 'auth' | 'probes' | 'traceUrlTemplate' | 'answers'> & { registry?: Registry | undefined }): void {
  const { guard, loginLimit, login } = uiAuth(options.auth ?? { host: '127.0.0.1' });
  app.get('/login', login);
  app.post('/login', loginLimit, login);
  for (const path of ['/', '/api/*', '/examples', '/review', '/calibration', '/weaknesses', '/probes', '/exams', '/answers', '/answers/*']) app.use(path, guard);
  app.get('/', async (c) => {
    const nonce = newNonce();
    return c.html(renderHomePage({ ...(await frontDoorOf(quality, options)), history: quality.history, range: historyRange(c.req.query('range')), nonce }), 200, pageHeaders({ nonce }));
  });
  // Any metric of the configuration's registry: the built-ins and the configured evaluators.
  mountSeries(app, quality.history, () => metricRegistryOf(quality.settings).names());
  const traceUrlTemplate = options.traceUrlTemplate ?? quality.settings.server.traceUrlTemplate;
  app.get('/probes', (c) => c.html(renderProbesPage(options.probes?.runs() ?? [], { traceUrlTemplate }), 200, pageHeaders()));
  app.get('/api/probes', (c) => c.json({ suites: options.probes?.runs() ?? [] }));
  app.get('/exams', (c) => c.html(renderExamsPage(quality.exams?.reports() ?? []), 200, pageHeaders()));
  app.get('/api/exams', (c) => c.json({ exams: quality.exams?.reports() ?? [] }));
  app.get('/api/releases', (c) => c.json({ services: quality.slices?.releases() ?? [] }));
  app.get('/api/slices', (c) => c.json({ slices: quality.slices?.status() ?? [] }));
  app.get('/weaknesses', (c) => c.html(renderWeaknessesPage(quality.weaknessView(), /^[a-z][a-z0-9_]{0,63}$/.test(c.req.query('metric') ?? '') ? c.req.query('metric') : undefined), 200, pageHeaders()));
  const { calibration } = quality.settings;
  mountReview(app, quality.review, { questions: calibration.questions, concepts: [...new Set([...Object.keys(calibration.questions), ...Object.keys(calibration.labelMetrics)])].filter((c) => c !== 'user_feedback'), calibration: quality.calibration, refitter: quality.refitter, traceUrlTemplate, feedback: quality.feedback });
  app.get('/api/feedback', (c) => {
    const traceId = c.req.query('traceId') ?? '';
    if (!/^[0-9a-f]{32}$/.test(traceId)) return c.json({ error: 'traceId must be a trace id: 32 lower-case hex digits' }, 400);
    if (!quality.feedback) return c.json({ error: 'feedback is off (config key "feedback.enabled") or kept by another process' }, 404);
    return c.json({ traceId, feedback: quality.feedback.forTrace(traceId) });
  });
  const thresholds = Object.fromEntries(quality.rules.map((r) => [r.metric, r.threshold]));
  const answers = options.answers ?? { role: 'start' as const };
  mountAnswers(
    app,
    () => ({ ...answers, thresholds, feedbackOf: (t) => quality.feedback?.forTrace(t) ?? [], labelsOf: (id) => quality.review?.labels(id) ?? [] }),
    traceUrlTemplate,
  );

  app.get('/api/status', (c) => c.json({ ready: options.ready(), config: options.summary?.() ?? {}, ...quality.status(), probes: probeSummary(options.probes?.runs() ?? []), probeAlerts: options.probes?.firing() ?? [] }));
  app.get('/api/examples', (c) => {
    const q = parseQuery((k) => c.req.query(k));
    if (typeof q === 'string') return c.json({ error: q }, 400);
    const examples = quality.examples.query(q);
    return c.json({ count: examples.length, examples });
  });
  app.get('/examples', (c) => {
    const q = parseQuery((k) => c.req.query(k));
    if (typeof q === 'string') return c.text(q, 400);
    const html = renderExamplesPage(quality.examples.query(q), { ...(q.metric ? { metric: q.metric } : {}), ...(q.below !== undefined ? { below: q.below } : {}), ...(q.service !== undefined ? { service: q.service } : {}), ...(q.sinceMs !== undefined ? { fromMs: q.sinceMs } : {}), ...(q.untilMs !== undefined ? { toMs: q.untilMs } : {}), oldestMs: quality.examples.oldestMs(), thresholds, traceUrlTemplate, feedbackOf: (t) => quality.feedback?.forTrace(t) ?? [] });
    return c.html(html, 200, pageHeaders());
  });
}
