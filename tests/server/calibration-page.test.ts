/**
 * `/calibration`: reliability bins by hand, and the page of a refitted calibration — behind the token,
 * one section per calibrated metric with raw and calibrated series in an SVG reliability diagram whose
 * calibrated points lie closer to the diagonal; a headless-Chromium screenshot for the docs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import { createApiApp } from '../../src/server/api-app.ts';
import { reliabilityBins } from '../../src/server/calibration-page.ts';
import { listen, type RunningServer } from '../../src/roles/serve.ts';
import { openReviewStore } from '../../src/store/create.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { inChromium } from '../helpers/chromium.ts';
import { haveBinaries } from '../helpers/prometheus.ts';

const TOKEN = 'calibration-page-token-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'ragwatch-calpage-'));

describe('reliability bins', () => {
  it('average prediction and fraction good per tenth, empty bins left out', () => {
    expect(reliabilityBins([0.05, 0.15, 0.12, 0.95], [0, 1, 0, 1])).toEqual([
      { x: 0.05, y: 0, n: 1 },
      { x: 0.135, y: 0.5, n: 2 },
      { x: 0.95, y: 1, n: 1 },
    ]);
  });
});

describe('/calibration', () => {
  let server: RunningServer;
  let quality: QualityMonitor;
  beforeAll(async () => {
    const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, store: { dataDir: dir, maxReviewItemsPerSecond: 1e9 } } });
    const instruments = createInstruments(instrumentsOptionsFromConfig(config));
    const review = (await openReviewStore(config, instruments.registry, silentLogger))!;
    quality = new QualityMonitor({ config, instruments, review });
    let seed = 5;
    const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (let i = 0; i < 800; i++) {
      const s = rand();
      const id = `a${i}`;
      const triplet = { id, traceId: `${i}`.padStart(32, '2'), spanId: '0'.repeat(16), service: 'rag', timestamp: new Date().toISOString(), query: 'q', sources: [{ content: 'c' }], response: 'r', latency: { durationMs: 1 }, convention: 'custom', sampling: { weight: 1, stratum: 's', rule: 'r' } } as SampledTriplet;
      const record = { tripletId: id, traceId: triplet.traceId, service: 'rag', stratum: 's', weight: 1, timestamp: triplet.timestamp, judge: { kind: 'embedded' }, scores: { grounding_lexical: s }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } } as ScoreRecord;
      quality.onRecord(record, triplet);
      review.addLabel({ tripletId: id, metric: 'groundedness', value: rand() < s ** 3 ? 1 : 0 });
    }
    await quality.refitter!.refit();
    server = await listen(createApiApp({ registry: instruments.registry, ready: () => true, quality, auth: { host: '127.0.0.1', apiToken: TOKEN } }), '127.0.0.1', 0);
  });
  afterAll(async () => {
    await server?.close();
    await quality?.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is refused without the token, and draws raw and calibrated reliability with the calibrated points nearer the diagonal', async () => {
    const url = `http://127.0.0.1:${server.port}/calibration`;
    expect((await fetch(url)).status).toBe(401);
    const html = await (await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    expect(html).toContain('grounding_lexical (embedded judge)');
    const circles = (cls: string) => [...html.matchAll(new RegExp(`<circle class="${cls}" cx="([\\d.]+)" cy="([\\d.]+)"`, 'g'))].map((m) => [Number(m[1]), Number(m[2])] as const);
    const raw = circles('raw');
    const cal = circles('calibrated');
    expect(raw.length).toBeGreaterThanOrEqual(8);
    expect(cal.length).toBeGreaterThanOrEqual(3);
    // Distance from the diagonal in SVG units (y grows downwards: the diagonal is cx + cy = const).
    const off = (pts: ReadonlyArray<readonly [number, number]>) => pts.reduce((a, [x, y]) => a + Math.abs(x + y - 320), 0) / pts.length;
    expect(off(cal)).toBeLessThan(off(raw) / 2);
    const api = (await (await fetch(`http://127.0.0.1:${server.port}/api/calibration`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { calibrations: unknown[]; labels: number };
    expect(api).toMatchObject({ labels: 800 });
    expect(api.calibrations).toHaveLength(1);
  });

  it.skipIf(!haveBinaries('calibration page screenshot', 'chromium'))('renders in headless Chromium (screenshot for docs/calibration.md)', async () => {
    await inChromium({ url: `http://127.0.0.1:${server.port}/calibration`, token: TOKEN, screenshot: 'calibration-page.png' }, async (page) => {
      expect(await page.locator('section svg circle').count()).toBeGreaterThan(10);
    });
  }, 60_000);
});
