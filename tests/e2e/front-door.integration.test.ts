/**
 * Issue 32 acceptance, on a real `ragwatch start` (in process, real ports) with the example probe
 * suite renamed `acme-hr` and asked of the demo RAG service (traced to this ragwatch with the real
 * OTel SDK): the front door `/` shows the service, a firing alert, the suite and a link to every page;
 * every page carries the nav bar; `/probes` after one run lists the worst template first with a
 * wrong answer and the judge audit; the series carry `suite="acme-hr"`; `ragwatch probe run` takes
 * the name too; and with `server.apiToken` none of the new pages or APIs answers without it.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoRag } from '../../scripts/demo-rag/service.ts';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { startApp, type RunningApp } from '../../src/roles/start.ts';
import { NAV_PAGES } from '../../src/server/layout.ts';
import { inChromium } from '../helpers/chromium.ts';
import { CLOCK_TOWER, openInferenceTrace, postOtlp } from '../helpers/otlp.ts';
import { BIN, freePort, metricValue, ROOT, waitFor } from '../helpers/process.ts';
import { haveBinaries } from '../helpers/prometheus.ts';

const TOKEN = 'front-door-test-token-0123456789';
const SUITE = 'acme-hr';
let dir: string;
let suiteFile: string;
let app: RunningApp;
let rag: Awaited<ReturnType<typeof startDemoRag>>;
let http: string;
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ragwatch-front-door-'));
  const otlpPort = await freePort();
  rag = await startDemoRag({ otlpUrl: `http://127.0.0.1:${otlpPort}` });
  cpSync(join(ROOT, 'config/probes/example/facts'), join(dir, 'facts'), { recursive: true });
  const suite = readFileSync(join(ROOT, 'config/probes/example/suite.yaml'), 'utf8')
    .replace(/^suite: .*$/m, `suite: ${SUITE}`)
    .replace('http://127.0.0.1:8080/ask', rag.url)
    .replace(/^limits: .*$/m, 'limits: { maxQueriesPerTemplate: 20, concurrency: 8, perMinute: 60000 }');
  suiteFile = join(dir, 'suite.yaml');
  writeFileSync(suiteFile, suite);
  const config = loadConfig({
    env: {},
    overrides: {
      server: { otlpPort, otlpGrpcPort: 0, httpPort: 0, apiToken: TOKEN },
      store: { dataDir: join(dir, 'data') },
      metrics: { processMetrics: false },
      probes: { suites: [suiteFile], firstRunDelayMs: 3_600_000, joinTimeoutMs: 20_000 },
      // One alert that the test traffic trips at once: the front door must show it firing.
      alerts: { evaluationIntervalMs: 250, metrics: { completeness: { threshold: 0.9, window: '1m', minSamples: 3, for: '1s', severity: 'page' } } },
    },
  });
  app = await startApp(config, silentLogger);
  http = `http://127.0.0.1:${app.http.port}`;
  await waitFor(() => app.pipeline.ready, 60_000);
  for (let i = 0; i < 6; i++) {
    const res = await postOtlp(`http://127.0.0.1:${otlpPort}/v1/traces`, JSON.stringify(openInferenceTrace(CLOCK_TOWER).body));
    expect(res.status).toBe(200);
  }
  await waitFor(() => app.quality.status().alerts.some((a) => a.state === 'firing'), 30_000);
  const report = await app.prober!.run(SUITE);
  expect(report?.suite).toBe(SUITE);
}, 180_000);

afterAll(async () => {
  await app?.shutdown();
  await rag?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the front door and the probes page', () => {
  it('series, /api/status and /api/probes carry the suite as named (acme-hr)', async () => {
    const metrics = await (await fetch(`${http}/metrics`)).text();
    expect(metricValue(metrics, 'ragwatch_probe_accuracy_ratio', { suite: SUITE })).toBeGreaterThan(0);
    const status = (await (await fetch(`${http}/api/status`, { headers: auth })).json()) as { probes: Array<{ suite: string; last: { accuracy: number } | null }> };
    expect(status.probes).toEqual([expect.objectContaining({ suite: SUITE, last: expect.objectContaining({ accuracy: expect.any(Number) }) })]);
    const probes = (await (await fetch(`${http}/api/probes`, { headers: auth })).json()) as { suites: Array<{ suite: string; last: { templates: Array<{ accuracy: number; misses: unknown[] }> } }> };
    const templates = probes.suites[0]!.last.templates;
    expect(templates[0]!.accuracy).toBeLessThan(1);
    expect(templates.map((t) => t.accuracy)).toEqual([...templates.map((t) => t.accuracy)].sort((a, b) => a - b));
  });

  it('without the token, every new page and API answers 401', async () => {
    for (const path of ['/', '/probes', '/api/probes', '/api/status']) expect((await fetch(`${http}${path}`)).status, path).toBe(401);
  });

  it.skipIf(!haveBinaries('front door in Chromium', 'chromium'))('/ shows the service, the firing alert, the suite and links to every page; each page has the nav bar', async () => {
    await inChromium({ url: `${http}/`, token: TOKEN, width: 1100, height: 900, screenshot: 'front-door.png' }, async (page) => {
      expect(await page.locator('h1').textContent()).toBe('What ragwatch sees now');
      expect(await page.locator('#services h3').allTextContents()).toContain('rag-demo');
      const alert = page.locator('#alerts li.bad').first();
      expect(await alert.textContent()).toMatch(/RagwatchCompletenessLow firing \(page\): completeness mean 0\.\d\d below 0\.90 for service rag-demo/);
      expect(await alert.locator('a').getAttribute('href')).toBe('/examples?metric=completeness&below=0.9&service=rag-demo');
      expect(await page.locator('#probes th a').textContent()).toBe(SUITE);
      expect(await page.locator('#probes th a').getAttribute('href')).toBe(`/probes#suite-${SUITE}`);
      expect(await page.locator('#pipeline td.ok').textContent()).toBe('balanced');
      const linked = new Set(await page.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href'))));
      for (const [path] of NAV_PAGES) expect(linked.has(path), path).toBe(true);
      for (const [path, label] of NAV_PAGES) {
        const res = await page.goto(`${http}${path}`);
        expect(res?.status(), path).toBe(200);
        expect(await page.locator('nav.rw a[aria-current=page]').textContent(), path).toBe(label);
        expect(await page.locator('nav.rw a').count(), path).toBe(NAV_PAGES.length + 1);
      }
      await page.goto(`${http}/`);
    });
  });

  it.skipIf(!haveBinaries('probes page in Chromium', 'chromium'))('/probes lists the worst template first with a wrong answer, and the judge audit', async () => {
    await inChromium({ url: `${http}/probes`, token: TOKEN, width: 1000, height: 900, screenshot: 'probes-page.png' }, async (page) => {
      expect(await page.locator(`h2[id="suite-${SUITE}"]`).textContent()).toContain(`Suite ${SUITE}`);
      const firstTemplate = page.locator('section table').nth(1).locator('tr').nth(1);
      expect(Number(await firstTemplate.locator('td').first().textContent())).toBeLessThan(1);
      const firstMiss = page.locator('ol.misses li').first();
      expect(await firstMiss.textContent()).toMatch(/Q:.*Expected:.*A:/s);
      expect(await firstMiss.locator('p.meta').textContent()).toMatch(/(wrong|abstained)( · failed in (retrieval|generator|unknown))? · trace [0-9a-f]{32}/);
      const audit = page.locator('h3:has-text("Judge audit") + p + table');
      expect(await audit.locator('th[scope=row]').allTextContents()).toContain('completeness');
    });
  });

  it('ragwatch probe run takes a suite named acme-hr', async () => {
    // Asynchronously: the demo service answering it runs in this process.
    const child = spawn(process.execPath, [BIN, 'probe', 'run', '--json', suiteFile], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout) as { suite: string; queries: number };
    expect(report.suite).toBe(SUITE);
    expect(report.queries).toBeGreaterThan(100);
  }, 150_000);
});
