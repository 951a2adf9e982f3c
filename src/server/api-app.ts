/**
 * Metrics and API port: `/metrics` (Prometheus text, or OpenMetrics with exemplars when asked),
 * `/healthz` (process alive), `/readyz` (judge loaded, transport delivering) — open, for scrapers and
 * probes — and the UI, behind {@link uiAuth}: `/api/status`, `/api/examples`, the `/examples` page
 * and `/login`. With `server.uiPort` the UI has a port of its own ({@link createUiApp}).
 * @module
 */
import { Hono } from 'hono';
import type { Registry } from 'prom-client';
import type { CalibrationMonitor } from '../calibration/monitor.ts';
import type { Refitter } from '../calibration/refit.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import type { ExamMonitor } from '../exams/monitor.ts';
import type { MetricAlertRule } from '../metrics/evaluator.ts';
import type { ExamplesBuffer, ExamplesQuery } from '../metrics/examples.ts';
import type { QualityStatus } from '../metrics/score-metrics.ts';
import type { ReviewStore } from '../store/review-store.ts';
import type { WeaknessView } from '../weakness/monitor.ts';
import { mountReview } from './review-routes.ts';
import { renderWeaknessesPage } from './weaknesses-page.ts';
import { renderExamsPage } from './exams-page.ts';
import { OPENMETRICS_CONTENT_TYPE, openMetrics, wantsOpenMetrics } from '../metrics/openmetrics.ts';
import { renderExamplesPage } from './examples-page.ts';
import { uiAuth, type UiAuthOptions } from './ui-auth.ts';

/** What the UI pages read: the consumers of score records a scoring role wired (its `QualityMonitor`). */
export interface UiSources {
  readonly settings: Readonly<RagwatchConfig>;
  readonly rules: readonly MetricAlertRule[];
  readonly examples: ExamplesBuffer;
  readonly review: ReviewStore | undefined;
  readonly calibration: CalibrationMonitor | undefined;
  readonly refitter: Refitter | undefined;
  readonly exams: ExamMonitor | undefined;
  status(): QualityStatus;
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
  const since = q('since');
  if (since !== undefined && since !== '') {
    const n = Number(since);
    if (!Number.isSafeInteger(n) || n < 0) return 'since must be a time in milliseconds since the epoch';
    out.sinceMs = n;
  }
  const below = q('below');
  if (below !== undefined && below !== '') {
    const n = Number(below);
    if (!Number.isFinite(n) || n < 0 || n > 1) return 'below must be a number in [0,1]';
    out.below = n;
  }
  const service = q('service');
  if (service !== undefined && service !== '') out.service = service;
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
  return app;
}

/** The UI routes alone (for `server.uiPort`). */
export function createUiApp(options: Omit<ApiAppOptions, 'registry'> & { quality: UiSources }): Hono {
  const app = new Hono();
  mountUi(app, options.quality, options);
  return app;
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

function mountUi(app: Hono, quality: UiSources, options: Pick<ApiAppOptions, 'ready' | 'summary' | 'auth'>): void {
  const { guard, loginLimit, login } = uiAuth(options.auth ?? { host: '127.0.0.1' });
  app.get('/login', login);
  app.post('/login', loginLimit, login);
  app.use('/api/*', guard);
  app.use('/examples', guard);
  app.use('/review', guard);
  app.use('/calibration', guard);
  app.use('/weaknesses', guard);
  app.use('/exams', guard);
  app.get('/exams', (c) => c.html(renderExamsPage(quality.exams?.reports() ?? []), 200, { 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'", 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' }));
  app.get('/api/exams', (c) => c.json({ exams: quality.exams?.reports() ?? [] }));
  app.get('/weaknesses', (c) => c.html(renderWeaknessesPage(quality.weaknessView(), /^[a-z][a-z0-9_]{0,63}$/.test(c.req.query('metric') ?? '') ? c.req.query('metric') : undefined), 200, { 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'", 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' }));
  const { calibration } = quality.settings;
  mountReview(app, quality.review, { questions: calibration.questions, concepts: [...new Set([...Object.keys(calibration.questions), ...Object.keys(calibration.labelMetrics)])], calibration: quality.calibration, refitter: quality.refitter });
  const thresholds = Object.fromEntries(quality.rules.map((r) => [r.metric, r.threshold]));

  app.get('/api/status', (c) => c.json({ ready: options.ready(), config: options.summary?.() ?? {}, ...quality.status() }));
  app.get('/api/examples', (c) => {
    const q = parseQuery((k) => c.req.query(k));
    if (typeof q === 'string') return c.json({ error: q }, 400);
    const examples = quality.examples.query(q);
    return c.json({ count: examples.length, examples });
  });
  app.get('/examples', (c) => {
    const q = parseQuery((k) => c.req.query(k));
    if (typeof q === 'string') return c.text(q, 400);
    const html = renderExamplesPage(quality.examples.query(q), { ...(q.metric ? { metric: q.metric } : {}), ...(q.below !== undefined ? { below: q.below } : {}), thresholds });
    return c.html(html, 200, { 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'", 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' });
  });
}
