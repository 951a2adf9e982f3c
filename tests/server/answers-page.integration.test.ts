/**
 * Issue 52, end to end: `ragwatch start` with the LLM judge on the scripted fake OpenAI server, a
 * sampling rate, a sampling rule, a scoring budget and two evaluation-export writers (an OTLP receiver
 * that accepts, a Phoenix that refuses). OpenInference traces are posted to its OTLP port, one per fate
 * — judged, flagged, not sampled by the rate, not sampled by a rule, incomplete (no sources), judge
 * failed (the fake answers garbage), shed by the budget, exported and export failed — and for each
 * both `GET /api/answers/<traceId>` and the page in headless Chromium name the stage and the reason.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { startApp, type RunningApp } from '../../src/roles/start.ts';
import type { AnswerViewJson } from '../../src/server/answer-view.ts';
import { unitHash } from '../../src/sampling/hash.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.ts';
import { oracleResponder } from '../judges/helpers/oracle.ts';
import { CLOCK_TOWER, hexId, openInferenceTrace, postOtlp, type RagRequest } from '../helpers/otlp.ts';
import { startOtlpRecorder, type OtlpRecorder } from '../helpers/otlp-recorder.ts';
import { haveBinaries, which } from '../helpers/prometheus.ts';
import { ROOT } from '../helpers/process.ts';

const enabled = haveBinaries('the answer page in Chromium', 'chromium');
const TOKEN = 'answers-page-token-0123456789';
const GARBAGE = 'GARBAGE-PLEASE';

/** A trace id the rate (0.5) samples, or one it leaves out. */
function traceId(sampled: boolean): string {
  for (;;) {
    const id = hexId(16);
    if (unitHash(id) < 0.5 === sampled) return id;
  }
}

describe.skipIf(!enabled)('the answer page: every fate named by stage and reason', () => {
  let fake: FakeOpenAI;
  let recorder: OtlpRecorder;
  let phoenix: Server;
  let app: RunningApp;
  let base: string;
  let browser: BrowserContext;
  const dir = mkdtempSync(join(tmpdir(), 'ragwatch-answers-'));
  const ids: Record<string, string> = {};

  const api = async (id: string) => (await (await fetch(`${base}/api/answers/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as AnswerViewJson;
  /** Polls the API until `done` holds for the trace (the trail fills as the stages decide). */
  async function until(id: string, done: (v: AnswerViewJson) => boolean, what: string): Promise<AnswerViewJson> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const v = await api(id);
      if (done(v)) return v;
      if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(v.stages)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const stage = (v: AnswerViewJson, name: string) => v.stages.find((s) => s.stage === name)!;
  async function send(name: string, req: Partial<RagRequest> & { sampled: boolean }): Promise<string> {
    const id = (ids[name] = traceId(req.sampled));
    const { body } = openInferenceTrace({ ...CLOCK_TOWER, ...req, traceId: id, llmAttributes: { 'gen_ai.response.id': `chatcmpl-${name}` } });
    const res = await postOtlp(`http://127.0.0.1:${app.otlp.port}/v1/traces`, JSON.stringify(body));
    expect(res.status).toBe(200);
    return id;
  }

  beforeAll(async () => {
    fake = await startFakeOpenAI(oracleResponder((answer, p) => (p.blocks.some((b) => b.text.includes(GARBAGE)) ? 'Sure! The answer looks grounded to me.' : answer)));
    recorder = await startOtlpRecorder();
    phoenix = createServer((req, res) => req.resume().on('end', () => res.writeHead(400, { 'content-type': 'application/json' }).end('{"detail":"no such project"}')));
    await new Promise<void>((r) => phoenix.listen(0, '127.0.0.1', r));
    const config = loadConfig({
      env: {},
      overrides: {
        server: { otlpPort: 0, otlpGrpc: false, httpPort: 0, apiToken: TOKEN },
        store: { dataDir: join(dir, 'data') },
        capture: { traceIdleMs: 200 },
        judge: { kind: 'llm', baseUrl: fake.baseURL, apiKey: 'k', concurrency: 1 },
        sampling: { rate: 0.5, rules: [{ name: 'skip-batch-jobs', action: 'out', match: { service: 'batch-jobs' } }], budget: { maxTripletsPerMinute: 3 } },
        evaluationExport: { otlp: { endpoint: `${recorder.endpoint}/v1/logs`, scheduledDelayMs: 100 }, phoenix: { endpoint: `http://127.0.0.1:${(phoenix.address() as AddressInfo).port}`, scheduledDelayMs: 100 } },
        metrics: { processMetrics: false },
      },
    });
    app = await startApp(config, silentLogger);
    base = `http://127.0.0.1:${app.ui.port}`;
    const executablePath = existsSync('/usr/lib/chromium/chromium') ? '/usr/lib/chromium/chromium' : which('chromium')!;
    browser = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath, headless: true, viewport: { width: 1000, height: 900 }, extraHTTPHeaders: { authorization: `Bearer ${TOKEN}` }, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });

    // First the fates that spend no budget, then the four sampled ones: the budget admits three a minute.
    await send('rate', { sampled: false });
    await send('rule', { sampled: true, service: 'batch-jobs' });
    await send('incomplete', { sampled: true, documents: [] });
    for (const [name, done] of [
      ['rate', (v: AnswerViewJson) => stage(v, 'sampling').outcome !== null],
      ['rule', (v: AnswerViewJson) => stage(v, 'sampling').outcome !== null],
      ['incomplete', (v: AnswerViewJson) => stage(v, 'capture').outcome !== null],
    ] as const) await until(ids[name]!, done, name);
    const judged = (v: AnswerViewJson) => stage(v, 'judge').outcome !== null && stage(v, 'judge').outcome !== 'retry';
    // One document that answers both parts of the question, and an answer that says it once: nothing flagged.
    const oneDoc = { documents: [CLOCK_TOWER.documents[0]!] };
    await send('judged', { sampled: true, documents: [{ id: 'doc-1', content: 'The Chimnabai Clock Tower in Vadodara was completed in 1896.' }], query: 'When was the Chimnabai Clock Tower completed?', response: 'The Chimnabai Clock Tower was completed in 1896.' });
    await until(ids.judged!, judged, 'judged');
    await send('flagged', { sampled: true, ...oneDoc, response: 'The Chimnabai Clock Tower was completed in 1856. It was named after Chimnabai I, a queen of Baroda State.' });
    await until(ids.flagged!, judged, 'flagged');
    await send('failed', { sampled: true, query: `When was the Chimnabai Clock Tower completed? ${GARBAGE}` });
    await until(ids.failed!, judged, 'failed');
    await send('shed', { sampled: true });
    await until(ids.shed!, judged, 'shed');
    // Both writers settle the judged answer: the receiver accepts, Phoenix refuses.
    await until(ids.judged!, (v) => (v.trail?.events.filter((e) => e.stage === 'export').length ?? 0) >= 2, 'export');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await app?.shutdown();
    await fake?.close();
    await recorder?.close();
    await new Promise((r) => phoenix?.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Opens the page and returns the verdict line and the trail table's row of a stage. */
  async function page(id: string, screenshot?: string): Promise<{ status: number; verdict: string; row: (stage: string) => Promise<string>; text: string }> {
    const p = await browser.newPage();
    const res = await p.goto(`${base}/answers/${id}`);
    const verdict = (await p.locator('p.verdict').textContent()) ?? '';
    const text = (await p.locator('main').textContent()) ?? '';
    if (screenshot) {
      mkdirSync(join(ROOT, 'tests/.artifacts'), { recursive: true });
      await p.screenshot({ path: join(ROOT, 'tests/.artifacts', screenshot), fullPage: true });
    }
    const rows = new Map<string, string>();
    for (const s of ['spans', 'capture', 'sampling', 'queue', 'judge', 'export']) rows.set(s, (await p.locator(`table.trail tr[data-stage="${s}"]`).textContent().catch(() => '')) ?? '');
    await p.close();
    return { status: res?.status() ?? 0, verdict, row: (s) => Promise.resolve(rows.get(s) ?? ''), text };
  }

  it('judged: every stage from spans to judge, the answer with its scores against thresholds', async () => {
    const v = await api(ids.judged!);
    expect(stage(v, 'spans')).toMatchObject({ outcome: 'received', reason: 'otlp' });
    expect(stage(v, 'capture')).toMatchObject({ outcome: 'assembled', reason: 'openinference' });
    expect(stage(v, 'sampling')).toMatchObject({ outcome: 'sampled', reason: 'rate' });
    expect(stage(v, 'queue')).toMatchObject({ outcome: 'queued', reason: 'memory' });
    expect(stage(v, 'judge'), stage(v, 'judge').detail ?? '').toMatchObject({ outcome: 'judged', reason: 'llm' });
    expect(v.answers[0]!.metrics.find((m) => m.metric === 'groundedness')).toMatchObject({ judge: 'llm', flagged: false });
    const pg = await page(ids.judged!);
    expect(pg.status).toBe(200);
    expect(await pg.row('judge')).toContain('judged');
    expect(pg.text).toContain('When was the Chimnabai Clock Tower completed');
  });

  it('flagged: the judge stage says which metric fell to its threshold, the page highlights the unsupported claim', async () => {
    const v = await api(ids.flagged!);
    expect(v.verdict).toMatchObject({ stage: 'judge', outcome: 'flagged', reason: 'llm' });
    expect(v.verdict!.detail).toMatch(/flagged: .*groundedness/);
    const p = await browser.newPage();
    await p.goto(`${base}/answers/${ids.flagged}`);
    expect(await p.locator('mark.unsupported').first().textContent()).toContain('1856');
    expect(await p.locator('ul.claims li.contradicted').count()).toBeGreaterThan(0);
    await p.close();
  });

  it('not sampled by the rate, and by a rule: the sampling stage names which decided', async () => {
    expect((await api(ids.rate!)).verdict).toMatchObject({ stage: 'sampling', outcome: 'not_sampled', reason: 'rate' });
    expect((await api(ids.rule!)).verdict).toMatchObject({ stage: 'sampling', outcome: 'not_sampled', reason: 'skip-batch-jobs' });
    const rate = await page(ids.rate!);
    expect(rate.verdict).toContain('not_sampled');
    expect(rate.verdict).toContain('sampling.rate');
    const rule = await page(ids.rule!);
    expect(rule.verdict).toContain('rule "skip-batch-jobs"');
  });

  it('incomplete: capture names the missing sources', async () => {
    const v = await api(ids.incomplete!);
    expect(v.verdict).toMatchObject({ stage: 'capture', outcome: 'incomplete', reason: 'sources' });
    const pg = await page(ids.incomplete!);
    expect(pg.verdict).toContain('missing sources');
  });

  it('judge failed: the garbage answer is a failure with its code and attempts, never a score', async () => {
    const v = await api(ids.failed!);
    expect(v.verdict).toMatchObject({ stage: 'judge', outcome: 'failed', reason: 'RAGWATCH_JUDGE_MALFORMED' });
    expect(v.answers).toEqual([]);
    const pg = await page(ids.failed!);
    expect(pg.verdict).toContain('RAGWATCH_JUDGE_MALFORMED');
  });

  it('shed by the budget: the judge stage says which budget', async () => {
    const v = await api(ids.shed!);
    expect(v.verdict).toMatchObject({ stage: 'judge', outcome: 'shed', reason: 'budget_triplets' });
    const pg = await page(ids.shed!);
    expect(pg.verdict).toContain('maxTripletsPerMinute');
  });

  it('exported and export failed: each writer\'s settlement is on the export stage', async () => {
    const v = await api(ids.judged!);
    const exports = v.trail!.events.filter((e) => e.stage === 'export');
    expect(exports).toEqual(expect.arrayContaining([expect.objectContaining({ outcome: 'sent', reason: 'otlp' }), expect.objectContaining({ outcome: 'failed', reason: 'rejected' })]));
    expect(exports.find((e) => e.outcome === 'failed')!.detail).toContain('phoenix');
    const pg = await page(ids.judged!, 'answer-page.png');
    expect(pg.text).toContain('to otlp: accepted');
    expect(pg.text).toContain('to phoenix: failed (rejected');
  });

  it('a trace never seen: the page says so and lists what was seen', async () => {
    const unseen = hexId(16);
    const p = await browser.newPage();
    const res = await p.goto(`${base}/answers/${unseen}`);
    expect(res?.status()).toBe(404);
    expect(await p.locator('p.verdict').textContent()).toContain('Not seen.');
    expect(await p.locator('ul.recent li').count()).toBeGreaterThanOrEqual(7);
    await p.close();
  });

  it('the front door\'s search box finds an answer by its response id', async () => {
    const p = await browser.newPage();
    await p.goto(`${base}/`);
    await p.fill('form.find input[name=q]', 'chatcmpl-flagged');
    await Promise.all([p.waitForURL(`**/answers/${ids.flagged}`), p.click('form.find button')]);
    expect(await p.locator('p.verdict').textContent()).toContain('flagged');
    await p.close();
  });
});
