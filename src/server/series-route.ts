/**
 * `GET /api/series?service=&metric=&from=&to=&step=[&judge=][&release=]`: the history's steps of one
 * metric of one service as JSON — the numbers the front door's charts draw (docs/history.md). Times are
 * milliseconds since the epoch or RFC 3339; `step` a duration (`5m`) or milliseconds. A bad parameter
 * gets 400 with the reason; a known metric with nothing kept gets empty series.
 * @module
 */
import type { Hono } from 'hono';
import { defaultStepMs } from '../history/series.ts';
import type { HistoryView, SeriesQuery } from '../history/types.ts';
import { durationMs } from '../metrics/duration.ts';

/** Most steps one answer may hold. */
export const MAX_POINTS = 5_000;
const MIN = 60_000;
const DEFAULT_RANGE_MS = 86_400_000;

/** A time parameter: milliseconds since the epoch, or an RFC 3339 date-time. */
function parseTime(value: string): number | undefined {
  if (/^[0-9]{1,15}$/.test(value)) return Number(value);
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}T/.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The query of a request, or the reason it is not one. `known` lists the metrics that may be asked for. */
export function parseSeriesQuery(q: (key: string) => string | undefined, o: { nowMs: number; known: ReadonlySet<string>; retentionMs: number }): SeriesQuery | string {
  const service = q('service');
  if (service === undefined || service === '') return 'service is required (a service name as the front door lists it)';
  if (service.length > 256) return 'service must be at most 256 characters';
  const metric = q('metric');
  if (metric === undefined || metric === '') return 'metric is required (a metric name like "groundedness")';
  if (!/^[a-z][a-z0-9_]{0,63}$/.test(metric)) return 'metric must be a metric name like "groundedness"';
  if (!o.known.has(metric)) return `unknown metric "${metric}"; known: ${[...o.known].sort().join(', ')}`;
  const out: Partial<SeriesQuery> = { service, metric };
  for (const key of ['judge', 'release'] as const) {
    const v = q(key);
    if (v === undefined || v === '') continue;
    if (v.length > 256) return `${key} must be at most 256 characters`;
    out[key] = v;
  }
  const to = q('to');
  const toMs = to === undefined || to === '' ? o.nowMs : parseTime(to);
  if (toMs === undefined) return 'to must be a time: milliseconds since the epoch or RFC 3339 (2026-01-31T12:00:00Z)';
  const from = q('from');
  const fromMs = from === undefined || from === '' ? toMs - DEFAULT_RANGE_MS : parseTime(from);
  if (fromMs === undefined) return 'from must be a time: milliseconds since the epoch or RFC 3339 (2026-01-31T12:00:00Z)';
  if (fromMs >= toMs) return 'from must be before to';
  if (fromMs < o.nowMs - o.retentionMs - DEFAULT_RANGE_MS) return `from is before the history's retention (history.retention = ${Math.round(o.retentionMs / 3_600_000)} h): nothing is kept that old`;
  const step = q('step');
  let stepMs = defaultStepMs(toMs - fromMs);
  if (step !== undefined && step !== '') {
    const parsed = /^[0-9]+$/.test(step) ? Number(step) : durationMs(step);
    if (parsed === undefined || !Number.isSafeInteger(parsed)) return 'step must be a duration like "5m" or milliseconds';
    if (parsed < MIN || parsed % MIN !== 0) return 'step must be whole minutes (at least "1m"): the history keeps one-minute rollups';
    stepMs = parsed;
  }
  if ((toMs - fromMs) / stepMs > MAX_POINTS) return `from–to holds more than ${MAX_POINTS} steps of ${stepMs / MIN} min: ask for a larger step or a shorter window`;
  return { ...out, service, metric, fromMs, toMs, stepMs };
}

/** Mounts `/api/series` (behind the guard already on `/api/*`). `known` gives the registered metric names. */
export function mountSeries(app: Hono, view: HistoryView | undefined, known: () => Iterable<string>): void {
  app.get('/api/series', (c) => {
    if (!view) return c.json({ error: 'no history in this process: it is kept by ragwatch start, or by the ragwatch slices pod in split mode (history.enabled)' }, 404);
    const names = new Set([...known(), ...view.metrics()]);
    const query = parseSeriesQuery((k) => c.req.query(k), { nowMs: Date.now(), known: names, retentionMs: view.retentionMs });
    if (typeof query === 'string') return c.json({ error: query }, 400);
    return c.json(view.series(query));
  });
}
