/**
 * The examples page in real headless Chromium (Debian package, driven by playwright-core): a known
 * ungrounded answer shows its unsupported claim highlighted, injected markup stays inert, and a
 * screenshot is written to tests/.artifacts/examples-page.png; with `server.traceUrlTemplate` set, the
 * trace id is a link Chromium follows to the templated URL of the tracing backend (a local stand-in).
 */
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import { Scorer } from '../../src/scorer/scorer.ts';
import { createApiApp } from '../../src/server/api-app.ts';
import { listen, type RunningServer } from '../../src/roles/serve.ts';
import type { SampledTriplet } from '../../src/triplet.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';
import { haveBinaries, which } from '../helpers/prometheus.ts';
import { ROOT } from '../helpers/process.ts';

const UNSUPPORTED = 'It was designed by Gustave Eiffel in 1856.';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const WORDS_TRACE_ID = '5cf92f3577b34da6a3ce929d0e0e4737';
const WORDS_ANSWER = 'Atoms went touring to Paris.';
const TOKEN = 'browser-test-token-0123456789';

describe.skipIf(!haveBinaries('examples page in Chromium', 'chromium'))('examples page in headless Chromium', () => {
  let server: RunningServer | undefined;
  let browser: BrowserContext | undefined;
  const profile = mkdtempSync(join(tmpdir(), 'ragwatch-chromium-'));
  // A stand-in for the tracing backend (Tempo, Jaeger, Phoenix, Langfuse): records what it was asked.
  let backend: Server | undefined;
  const visits: string[] = [];
  let template = '';

  beforeAll(async () => {
    backend = createServer((req, res) => {
      visits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>trace view</title>');
    });
    await new Promise<void>((r) => backend!.listen(0, '127.0.0.1', r));
    template = `http://127.0.0.1:${(backend.address() as { port: number }).port}/trace/{traceId}?orgId=1&view="x"`;
    const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, server: { traceUrlTemplate: template } } });
    const instruments = createInstruments(instrumentsOptionsFromConfig(config));
    const quality = new QualityMonitor({ config, instruments });
    const scorer = new Scorer({ judge: new LexicalJudge(), instruments, onRecord: quality.onRecord });
    const triplet: SampledTriplet = {
      id: 'ex-1',
      traceId: TRACE_ID,
      spanId: '00f067aa0ba902b7',
      service: 'rag-demo',
      route: '/ask',
      timestamp: new Date().toISOString(),
      query: 'When was the Chimnabai Clock Tower completed?',
      sources: [{ id: 'wiki-42', content: 'The Chimnabai Clock Tower in Vadodara was completed in 1896.' }],
      response: `The Chimnabai Clock Tower was completed in 1896. ${UNSUPPORTED} <img src=x onerror="window.__pwned=1">`,
      latency: { durationMs: 800 },
      convention: 'openinference',
      sampling: { weight: 1, stratum: 'default', rule: 'test' },
    };
    await scorer.handle(triplet);
    // An embedded-judge record whose unsupported token "to" also occurs inside "Atoms" and "touring".
    const words: SampledTriplet = { ...triplet, id: 'ex-2', traceId: WORDS_TRACE_ID, response: WORDS_ANSWER, convention: 'custom' };
    quality.onRecord(
      {
        tripletId: words.id, traceId: words.traceId, service: words.service, stratum: 'default', weight: 1, timestamp: words.timestamp,
        judge: { kind: 'embedded' }, scores: { grounding_lexical: 0.5 }, skipped: {},
        details: { claims: [], subQuestions: [], sources: [], redundantSentences: [], unsupportedTokens: ['to'] },
        diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 },
      },
      words,
    );
    server = await listen(createApiApp({ registry: instruments.registry, ready: () => true, quality, auth: { host: '127.0.0.1', apiToken: TOKEN } }), '127.0.0.1', 0);
    const executablePath = existsSync('/usr/lib/chromium/chromium') ? '/usr/lib/chromium/chromium' : which('chromium')!;
    // A fresh profile directory per run (launchPersistentContext passes it as --user-data-dir).
    browser = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      viewport: { width: 1000, height: 700 },
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((r) => backend?.close(r));
    rmSync(profile, { recursive: true, force: true });
  });

  it('highlights the unsupported claim of a known ungrounded answer and renders the trace id and sources', async () => {
    const page = await browser!.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    // Without a session the page is the sign-in form (401); the token signs in and returns to the page.
    const refused = await page.goto(`http://127.0.0.1:${server!.port}/examples?metric=groundedness&below=0.7`);
    expect(refused?.status()).toBe(401);
    await page.locator('input[name="token"]').fill(TOKEN);
    const [res] = await Promise.all([page.waitForNavigation(), page.locator('button[type="submit"]').click()]);
    expect(res?.status()).toBe(200);
    expect(page.url()).toMatch(/\/examples\?metric=groundedness&below=0\.7$/);
    const marks = page.locator('article mark.unsupported');
    expect(await marks.count()).toBeGreaterThanOrEqual(1);
    const texts = await marks.allInnerTexts();
    expect(texts.some((t) => UNSUPPORTED.startsWith(t) && t.length > 20)).toBe(true);
    expect(texts.some((t) => t.includes('1896') && t.includes('completed'))).toBe(false);
    await expect.poll(() => marks.first().isVisible()).toBe(true);
    // Runs in the page; typed loosely because the test tsconfig has no DOM lib.
    type Win = { getComputedStyle(e: unknown): { backgroundColor: string }; __pwned?: number };
    const bg = await marks.first().evaluate((el) => (globalThis as unknown as Win).getComputedStyle(el).backgroundColor);
    expect(bg).not.toBe('rgba(0, 0, 0, 0)');
    expect(await page.locator('code.trace-id').innerText()).toBe(TRACE_ID);
    expect(await page.locator('.scores [data-metric="groundedness"]').innerText()).toMatch(/^groundedness 0\.\d\d$/);
    await page.locator('details summary').click();
    expect(await page.locator('details blockquote').innerText()).toContain('wiki-42');
    // The injected markup is text, not an element, and nothing ran.
    expect(await page.locator('article img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as Win).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    const dir = join(ROOT, 'tests/.artifacts');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'examples-page.png');
    await page.screenshot({ path: file, fullPage: true });
    const png = readFileSync(file);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.length).toBeGreaterThan(5_000);
  }, 30_000);

  it('marks an unsupported word only where it stands as a word, not inside "Atoms" or "touring"', async () => {
    const page = await browser!.newPage();
    // The session cookie from the sign-in above is shared by the context.
    const res = await page.goto(`http://127.0.0.1:${server!.port}/examples?metric=grounding_lexical`);
    expect(res?.status()).toBe(200);
    const answer = page.locator('article', { hasText: 'Atoms went touring' }).locator('.answer');
    expect(await answer.innerText()).toBe(`A: ${WORDS_ANSWER}`);
    expect(await answer.locator('mark.unsupported').allInnerTexts()).toEqual(['to']);
    expect(await answer.innerHTML()).toBe('<b>A:</b> Atoms went touring <mark class="unsupported">to</mark> Paris.');
    await answer.screenshot({ path: join(ROOT, 'tests/.artifacts/examples-whole-words.png') });
  }, 30_000);

  it('links the trace id to server.traceUrlTemplate, escaped, and Chromium follows it to the trace view', async () => {
    const page = await browser!.newPage();
    expect((await page.goto(`http://127.0.0.1:${server!.port}/examples?metric=groundedness&below=0.7`))?.status()).toBe(200);
    const link = page.locator('article', { hasText: 'Eiffel' }).locator('a.trace-link');
    const expected = template.replace('{traceId}', TRACE_ID);
    // The quotes of the template stay inside the attribute (escaped), not breaking out of it.
    expect(await link.getAttribute('href')).toBe(expected);
    await Promise.all([page.waitForURL((u) => u.pathname === `/trace/${TRACE_ID}`), link.click()]);
    expect(await page.title()).toBe('trace view');
    expect(visits.filter((v) => v.startsWith('/trace/'))).toEqual([expect.stringMatching(new RegExp(`^/trace/${TRACE_ID}\\?orgId=1&view=`))]);
  }, 30_000);
});
