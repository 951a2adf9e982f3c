/**
 * Issue 47 acceptance, in headless Chromium:
 * - a demo run: `ragwatch start` (a real process, embedded judge) takes `npm run demo`'s traffic; the
 *   front door then draws a chart per metric the judge scored, with the points the store holds
 *   (`/api/series` says the same numbers); stopped and started again on the same data directory, it
 *   draws the same history before any new answer arrives;
 * - a backtest-style history: three days of score records with a release change and a drop in
 *   groundedness with it, replayed through the alert evaluators on a simulated clock into the history;
 *   `ragwatch start` on that store shows the firing shaded and the release marked, a range dragged
 *   across the chart and a firing open the examples of their windows (docs/images/history-drop.png).
 * About 100 s: the demo traffic has to span two clock minutes for a chart to draw a line (two steps).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { openHistory } from '../../src/history/create.ts';
import { silentLogger } from '../../src/log.ts';
import { metricRegistryOf } from '../../src/metric-registry.ts';
import { replay } from '../../src/roles/backtest.ts';
import { startApp } from '../../src/roles/start.ts';
import type { ScoreRecord } from '../../src/triplet.ts';
import { inChromium } from '../helpers/chromium.ts';
import { haveBinaries } from '../helpers/prometheus.ts';
import { freePort, ROOT, spawnRagwatch, waitFor, type RagwatchProcess } from '../helpers/process.ts';
import { rng } from '../helpers/rng.ts';

const TOKEN = 'history-e2e-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const chromium = haveBinaries('history charts in Chromium', 'chromium');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Series {
  stepMs: number;
  series: Array<{ judge: string; points: Array<{ t: number; mean: number | null; answers: number }> }>;
  firings: Array<{ name: string; startMs: number; endMs?: number }>;
  releases: Array<{ release: string; firstMs: number }>;
}

/** `ragwatch start` on `dataDir`, real ports; resolves with its URLs once the judge is ready. */
async function start(dataDir: string): Promise<{ proc: RagwatchProcess; http: string; otlp: string }> {
  const [httpPort, otlpPort] = [await freePort(), await freePort()];
  const proc = spawnRagwatch(['start'], { RAGWATCH_CONFIG: '', RAGWATCH_DATA_DIR: dataDir, RAGWATCH_HTTP_PORT: String(httpPort), RAGWATCH_OTLP_PORT: String(otlpPort), RAGWATCH_OTLP_GRPC_PORT: '0', RAGWATCH_API_TOKEN: TOKEN, RAGWATCH_LOG_FORMAT: 'json' });
  const http = `http://127.0.0.1:${httpPort}`;
  await waitFor(async () => (await fetch(`${http}/readyz`).catch(() => undefined))?.status === 200, 90_000, 250);
  return { proc, http, otlp: `http://127.0.0.1:${otlpPort}` };
}

async function stop(p: RagwatchProcess): Promise<void> {
  p.child.kill('SIGTERM');
  expect(await p.exited).toBe(0);
}

const json = async <T,>(url: string) => (await (await fetch(url, { headers: auth })).json()) as T;

describe('after a demo run', () => {
  it.skipIf(!chromium)('the front door draws a chart per metric from the store, and again after a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ragwatch-history-demo-'));
    dirs.push(dataDir);
    let app = await start(dataDir);
    try {
      // npm run demo for 66 s (66 requests, 80 % grounded), without its demo RAG service: at least two one-minute steps.
      const demo = spawn(process.execPath, ['scripts/demo.ts', '--url', app.otlp, '--rate', '1', '--count', '66', '--rag-port', 'off'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      expect(await new Promise((r) => demo.once('exit', r))).toBe(0);
      // All 66 judged (a metric may be skipped on some answers: each has its own count).
      await waitFor(async () => /^ragwatch_triplets_scored_total(\{[^}]*\})? 66$/m.test(await (await fetch(`${app.http}/metrics`)).text()), 120_000, 500);
      const status = await json<{ means: Array<{ metric: string; judge: string; service: string; samples: number }> }>(`${app.http}/api/status`);
      const samples = Object.fromEntries(status.means.map((m) => [m.metric, m.samples]));
      const metrics = Object.keys(samples).sort();
      expect(metrics.length).toBeGreaterThanOrEqual(5);
      // Every metric's history holds its judged answers, in the last hour's one-minute steps.
      const before: Record<string, number[]> = {};
      for (const metric of metrics) {
        const r = await json<Series>(`${app.http}/api/series?service=rag-demo&metric=${metric}&from=${Date.now() - 3_600_000}&step=1m`);
        expect(r.series.map((s) => s.judge), metric).toEqual(['embedded']);
        const points = r.series[0]!.points.filter((p) => p.answers > 0);
        expect(points.length, metric).toBeGreaterThanOrEqual(2);
        expect(points.reduce((n, p) => n + p.answers, 0), metric).toBe(samples[metric]);
        for (const p of points) expect(p.mean, metric).toBeGreaterThanOrEqual(0);
        before[metric] = r.series[0]!.points.map((p) => p.answers);
      }
      const check = async (screenshot: string) =>
        inChromium({ url: `${app.http}/?range=1h`, token: TOKEN, width: 1200, height: 900, screenshot }, async (page) => {
          const captions = await page.locator('#history figure.history figcaption b').allTextContents();
          expect(captions.sort()).toEqual(metrics);
          for (const metric of metrics) {
            const figure = page.locator('#history figure.history', { has: page.locator(`figcaption b:text-is("${metric}")`) });
            // The mean's line has points, each step with answers links to its examples, the text says 60 answers.
            expect(await figure.locator('svg path[stroke="#1864ab"]').getAttribute('d'), metric).toMatch(/^M[\d.]+,[\d.]+L[\d.]+,[\d.]+/);
            expect(await figure.locator('svg a.step').count(), metric).toBeGreaterThan(0);
            expect(await figure.locator('p.summary').textContent(), metric).toMatch(new RegExp(`, ${samples[metric]} answers\\.`));
          }
          expect(await page.locator('nav.ranges a[aria-current]').textContent()).toBe('1h');
        });
      await check('front-door-history.png');
      await stop(app.proc);
      // The same data directory, no new answer: the same history.
      app = await start(dataDir);
      for (const metric of metrics) {
        const r = await json<Series>(`${app.http}/api/series?service=rag-demo&metric=${metric}&from=${Date.now() - 3_600_000}&step=1m`);
        expect(r.series[0]!.points.map((p) => p.answers).filter((n) => n > 0), metric).toEqual(before[metric]!.filter((n) => n > 0));
      }
      await check('front-door-history-restarted.png');
    } finally {
      await stop(app.proc);
    }
  }, 300_000);
});

describe('a backtest-style history: a drop that came with a release', () => {
  it.skipIf(!chromium)('shows the firing shaded and the release marked; a firing opens its examples', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ragwatch-history-drop-'));
    dirs.push(dataDir);
    const config = loadConfig({ env: {}, overrides: { store: { dataDir }, metrics: { processMetrics: false }, server: { httpPort: 0, otlpPort: 0, otlpGrpcPort: 0, apiToken: TOKEN } } });
    // Three days at one answer every 20 s; release 1.1 eight hours ago, and groundedness drops with it.
    const now = Date.now();
    const releaseMs = Math.floor((now - 8 * 3_600_000) / 60_000) * 60_000;
    const random = rng(47);
    const records: Array<{ ms: number; record: ScoreRecord }> = [];
    for (let ms = now - 3 * 86_400_000, i = 0; ms < now - 60_000; ms += 20_000, i++) {
      const release = ms < releaseMs ? '1.0' : '1.1';
      const groundedness = release === '1.0' ? 0.78 + 0.22 * random() : 0.45 + 0.4 * random();
      const record: ScoreRecord = { tripletId: `t${i}`, traceId: i.toString(16).padStart(32, '0'), service: 'rag', release, stratum: 'default', weight: 1, timestamp: new Date(ms).toISOString(), judge: { kind: 'llm' }, scores: { groundedness, faithfulness: 0.85 + 0.15 * random() }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 1, inputTokens: 0, outputTokens: 0, durationMs: 0 } };
      records.push({ ms, record });
    }
    const history = (await openHistory(config, { thresholds: () => ({ groundedness: 0.8, faithfulness: 0.8 }), metrics: metricRegistryOf(config) }))!;
    const report = replay(config, records, { onRecord: (r) => history.sink.onRecord(r), onNotices: history.sink.onNotices });
    await history.shutdown();
    const fired = report.alerts.filter((a) => a.metric === 'groundedness' && a.kind === 'threshold');
    expect(fired).toHaveLength(1);
    expect(Date.parse(fired[0]!.firings[0]!.start)).toBeGreaterThan(releaseMs);

    const app = await startApp(config, silentLogger);
    try {
      const http = `http://127.0.0.1:${app.http.port}`;
      const r = await json<Series>(`${http}/api/series?service=rag&metric=groundedness&from=${now - 86_400_000}&to=${now}&step=10m`);
      expect(r.releases.map((x) => [x.release, x.firstMs])).toEqual([['1.1', records.find((x) => x.record.release === '1.1')!.ms]]);
      const low = r.firings.find((f) => f.name === 'RagwatchGroundednessLow')!;
      expect(low.startMs).toBe(Date.parse(fired[0]!.firings[0]!.start));
      await inChromium({ url: `${http}/`, token: TOKEN, width: 1100, height: 1000, screenshot: 'history-drop-front-door.png' }, async (page) => {
        const figure = page.locator('#history figure.history', { has: page.locator('figcaption b:text-is("groundedness")') });
        expect(await figure.locator('svg rect.firing').count()).toBeGreaterThanOrEqual(1);
        expect(await figure.locator('svg g.release text').allTextContents()).toEqual(['1.1']);
        const summary = await figure.locator('p.summary').textContent();
        // The threshold alert and the change alert's page tier, each with its interval.
        expect(summary).toMatch(/RagwatchGroundednessLow fired \d\d-\d\d \d\d:\d\d–(now|\d\d-\d\d \d\d:\d\d)\./);
        expect(summary).toMatch(/RagwatchGroundednessDrop fired/);
        expect(summary).toMatch(/Release 1\.1 from \d\d-\d\d \d\d:\d\d\./);
        expect(summary).toMatch(/Outside its normal band at \d+ of 14[45] steps/);
        // The shaded firing starts after the release line, on the chart.
        const shade = Number(await figure.locator('svg rect.firing').first().getAttribute('x'));
        const line = Number(await figure.locator('svg g.release line').getAttribute('x1'));
        expect(shade).toBeGreaterThan(line);
        // faithfulness did not move: no firing on its chart.
        const other = page.locator('#history figure.history', { has: page.locator('figcaption b:text-is("faithfulness")') });
        expect(await other.locator('svg rect.firing').count()).toBe(0);
        await page.locator('#history').screenshot({ path: join(ROOT, 'tests/.artifacts/history-drop.png') });
        // Drag from the release line to the chart's right end: the examples of that range, snapped to 10-minute steps.
        const box = (await figure.locator('svg').boundingBox())!;
        const scale = box.width / 360;
        const [y, xStart, xEnd] = [box.y + 60 * scale, box.x + line * scale + 1, box.x + 350 * scale];
        await page.mouse.move(xStart, y);
        await page.mouse.down();
        await page.mouse.move((xStart + xEnd) / 2, y, { steps: 4 });
        await page.mouse.move(xEnd, y, { steps: 4 });
        await page.mouse.up();
        await page.waitForURL(/\/examples\?service=rag&metric=groundedness&below=0\.8&from=\d+&to=\d+$/);
        const asked = new URL(page.url()).searchParams;
        const [from, to] = [Number(asked.get('from')), Number(asked.get('to'))];
        expect(from % 600_000).toBe(0);
        expect(to % 600_000).toBe(0);
        expect(Math.abs(from - releaseMs)).toBeLessThanOrEqual(20 * 60_000);
        expect(to).toBeGreaterThan(now - 20 * 60_000);
        await page.goBack();
        // SVG shapes never count as "stable" for Playwright's actionability wait: a forced click, a real one all the same.
        await figure.locator('svg a.firing rect').first().click({ force: true });
        await page.waitForURL(/\/examples\?service=rag&metric=groundedness&below=0\.8&from=\d+&to=\d+/);
        expect(await page.locator('p.window').textContent()).toMatch(/^Answers from \S+ to \S+ of service rag\./);
      });
    } finally {
      await app.shutdown();
    }
  }, 300_000);
});
