/**
 * The history on the pages: `/api/series` (data, validation with reasons, authentication), the front
 * door's charts (chooser, threshold, band, firing, release, the numbers without the picture) and the
 * examples page's from/to window.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { metricRegistryOf } from '../../src/metric-registry.ts';
import { openHistory, type History } from '../../src/history/create.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { createApiApp } from '../../src/server/api-app.ts';
import { createInstruments, instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import type { SampledTriplet } from '../../src/triplet.ts';
import { record } from '../history/fixtures.ts';

const TOKEN = 'history-page-token-0123456789';
const MIN = 60_000;
let dir: string;
let history: History;
let quality: QualityMonitor;
let app: ReturnType<typeof createApiApp>;
/** Three to five hours ago, on a whole two hours: the fixture's answers are placed from here. */
let start: number;
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ragwatch-history-page-'));
  // A configured evaluator (my_criterion) beside the built-ins: the registry of the configuration knows it.
  const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, store: { dataDir: dir }, alerts: { metrics: { groundedness: { threshold: 0.7 } } }, evaluators: [{ name: 'my_criterion', description: 'cites a source', kind: 'check', check: { citesSource: true } }] } });
  const instruments = createInstruments(instrumentsOptionsFromConfig(config));
  quality = new QualityMonitor({ config, instruments });
  // A metric of no registry is not kept.
  history = (await openHistory(config, { registry: instruments.registry, thresholds: () => quality.scores.thresholds(), metrics: metricRegistryOf(config) }))!;
  quality.history = history.view;
  start = Math.floor((Date.now() - 3 * 3_600_000) / 7_200_000) * 7_200_000;
  // 90 minutes of two answers a minute at 0.9; the last 20 at 0.3, with release 2.0 from then on.
  for (let m = 0; m < 90; m++) {
    for (const s of [0, 30_000]) {
      const low = m >= 70;
      const r = record(start + m * MIN + s, { groundedness: low ? 0.3 : 0.9, my_criterion: 0.5, not_configured: 0.1 }, { release: low ? '2.0' : '1.0', tripletId: `r${m}-${s}`, traceId: `${m}`.padStart(32, 'c') });
      const t = { id: r.tripletId, traceId: r.traceId, spanId: '0'.repeat(16), service: 'rag', timestamp: r.timestamp, query: 'q', sources: [], response: 'a', latency: { durationMs: 1 }, convention: 'custom', sampling: { weight: 1, stratum: 's', rule: 'r' } } as SampledTriplet;
      quality.onRecord(r, t);
      history.sink.onRecord(r, t);
    }
  }
  history.sink.onNotices([{ status: 'firing', labels: { alertname: 'RagwatchGroundednessLow', metric: 'groundedness', service: 'rag', judge: 'embedded', severity: 'page' }, annotations: {}, startsAt: new Date(start + 75 * MIN).toISOString(), endsAt: new Date(start + 80 * MIN).toISOString(), generatorURL: '' }]);
  app = createApiApp({ registry: instruments.registry, ready: () => true, quality, auth: { host: '127.0.0.1', apiToken: TOKEN } });
});

afterAll(async () => {
  await history.shutdown();
  await quality.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

const get = (path: string, headers: Record<string, string> = auth) => app.request(path, { headers });

describe('/api/series', () => {
  it('answers the steps of the window: mean, flagged share, answers, the firing and the release change', async () => {
    const res = await get(`/api/series?service=rag&metric=groundedness&from=${start}&to=${start + 90 * MIN}&step=10m`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { stepMs: number; threshold: number; series: Array<{ judge: string; points: Array<{ t: number; mean: number; flaggedShare: number; answers: number }> }>; firings: Array<{ name: string; startMs: number; endMs?: number }>; releases: Array<{ release: string; firstMs: number }> };
    expect(body.stepMs).toBe(10 * MIN);
    expect(body.threshold).toBe(0.7);
    const points = body.series[0]!.points;
    expect(points.map((p) => p.answers)).toEqual(Array(9).fill(20));
    expect(points.map((p) => p.mean.toFixed(12))).toEqual([...Array(7).fill('0.900000000000'), '0.300000000000', '0.300000000000']);
    expect(points.map((p) => p.flaggedShare)).toEqual([...Array(7).fill(0), 1, 1]);
    expect(body.firings).toEqual([expect.objectContaining({ name: 'RagwatchGroundednessLow', startMs: start + 75 * MIN })]);
    expect(body.firings[0]!.endMs).toBeUndefined();
    expect(body.releases.map((r) => [r.release, r.firstMs])).toEqual([
      ['1.0', start],
      ['2.0', start + 70 * MIN],
    ]);
    // RFC 3339 times and the release filter.
    const only = (await (await get(`/api/series?service=rag&metric=groundedness&release=1.0&from=${new Date(start).toISOString()}&to=${new Date(start + 90 * MIN).toISOString()}&step=1h`)).json()) as typeof body;
    expect(only.series[0]!.points.map((p) => p.answers)).toEqual([120, 20]);
  });

  it('answers for a metric that is not a built-in once the history holds it (a configured evaluator)', async () => {
    const res = await get(`/api/series?service=rag&metric=my_criterion&from=${start}&to=${start + 120 * MIN}&step=2h`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { threshold: number; series: Array<{ points: Array<{ mean: number; flaggedShare: number; answers: number }> }> };
    // The evaluator's default alert threshold (0.8) is its line; every 0.5 is flagged.
    expect(body.threshold).toBe(0.8);
    expect(body.series[0]!.points).toEqual([expect.objectContaining({ mean: 0.5, flaggedShare: 1, answers: 180 })]);
    expect((await get('/api/series?service=rag&metric=not_configured')).status).toBe(400);
    // A known metric with nothing kept: empty series, not an error.
    expect(((await (await get('/api/series?service=rag&metric=completeness')).json()) as { series: unknown[] }).series).toEqual([]);
  });

  it('refuses bad parameters with 400 and the reason', async () => {
    const cases: Array<[string, RegExp]> = [
      ['metric=groundedness', /service is required/],
      ['service=rag', /metric is required/],
      ['service=rag&metric=Ground;edness', /metric must be a metric name/],
      ['service=rag&metric=no_such_metric', /unknown metric "no_such_metric"; known: .*groundedness/],
      ['service=rag&metric=groundedness&from=yesterday', /from must be a time/],
      ['service=rag&metric=groundedness&to=2026-13-45T00:00:00Z', /to must be a time/],
      [`service=rag&metric=groundedness&from=${start + MIN}&to=${start}`, /from must be before to/],
      ['service=rag&metric=groundedness&from=0', /before the history's retention/],
      ['service=rag&metric=groundedness&step=5x', /step must be a duration/],
      ['service=rag&metric=groundedness&step=30s', /step must be whole minutes/],
      [`service=rag&metric=groundedness&from=${start - 5 * 86_400_000}&to=${start}&step=1m`, /more than 5000 steps/],
    ];
    for (const [query, reason] of cases) {
      const res = await get(`/api/series?${query}`);
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as { error: string }).error, query).toMatch(reason);
    }
  });

  it('is authenticated like the other APIs', async () => {
    expect((await get('/api/series?service=rag&metric=groundedness', {})).status).toBe(401);
  });
});

describe('the front door charts', () => {
  it('draws a chart per metric with threshold, band, firing and release, and says the numbers as text', async () => {
    const html = await (await get('/')).text();
    const section = html.slice(html.indexOf('<section id="history">'), html.indexOf('</section>', html.indexOf('<section id="history">')));
    expect(section).toContain('<a href="/?range=24h#history" aria-current="true">24h</a>');
    expect(section.match(/<figure class="history"/g)).toHaveLength(2);
    expect(section).toMatch(/<figcaption><b>groundedness<\/b> <span class="meta">embedded judge · threshold 0.7<\/span>/);
    expect(section).toMatch(/<line class="threshold"[^>]*><title>threshold 0.7<\/title>/);
    expect(section).toMatch(/<rect class="firing" x="[\d.]+" y="14" width="[\d.]+" height="100"/);
    expect(section).toMatch(/<a class="firing" href="\/examples\?service=rag&amp;metric=groundedness&amp;below=0.7&amp;from=\d+&amp;to=\d+"><rect[^>]*><title>RagwatchGroundednessLow \(page\) fired/);
    expect(section).toMatch(/<g class="release"><line[^>]*\/><text[^>]*>2.0<\/text>/);
    // 24 h in 10-minute steps: the no-picture reading says the same numbers.
    console.log(section.match(/<p class="summary"[^<]*/g));
    expect(section).toMatch(/Mean 0\.77 \(lowest 0\.30 at \d\d-\d\d \d\d:\d\d\), 22 % flagged, 180 answers\./);
    expect(section).toContain('Outside its normal band at 2 of 9 steps');
    expect(section).toContain('RagwatchGroundednessLow fired');
    expect(section).toContain('Release 2.0 from');
    expect(section).toMatch(/<details class="numbers"><summary>The numbers \(9 steps of 10 min, UTC\)<\/summary>/);
    expect((await (await get('/?range=1h')).text())).toContain('<a href="/?range=1h#history" aria-current="true">1h</a>');
  });
});

describe('the examples of a window (from/to)', () => {
  it('filters by from and to, says the window, and refuses a bad one', async () => {
    const all = (await (await get('/api/examples?limit=200')).json()) as { count: number };
    const res = (await (await get(`/api/examples?metric=groundedness&from=${start + 80 * MIN}&to=${start + 85 * MIN}&limit=200`)).json()) as { count: number; examples: Array<{ record: { timestamp: string } }> };
    expect(res.count).toBe(10);
    expect(all.count).toBeGreaterThan(res.count);
    for (const e of res.examples) expect(Date.parse(e.record.timestamp)).toBeGreaterThanOrEqual(start + 80 * MIN);
    const page = await (await get(`/examples?service=rag&metric=groundedness&from=${start + 80 * MIN}&to=${start + 85 * MIN}`)).text();
    expect(page).toContain(`Answers from ${new Date(start + 80 * MIN).toISOString().replace('.000Z', 'Z')} to ${new Date(start + 85 * MIN).toISOString().replace('.000Z', 'Z')} of service rag.`);
    expect((await get(`/api/examples?from=${start + MIN}&to=${start}`)).status).toBe(400);
    expect(await (await get('/api/examples?to=tomorrow')).json()).toEqual({ error: expect.stringMatching(/^to must be a time/) });
  });
});

describe('without a history', () => {
  it('the front door says where the history is kept, and /api/series answers 404 with the reason', async () => {
    const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, history: { enabled: false } } });
    expect(await openHistory(config)).toBeUndefined();
    const instruments = createInstruments(instrumentsOptionsFromConfig(config));
    const bare = new QualityMonitor({ config, instruments });
    const server = createApiApp({ registry: instruments.registry, ready: () => true, quality: bare });
    const html = await (await server.request('/')).text();
    expect(html).toContain('No history here: it is kept by the process that sees every score');
    const res = await server.request('/api/series?service=rag&metric=groundedness');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toMatch(/ragwatch slices pod in split mode/);
    await bare.shutdown();
  });
});
