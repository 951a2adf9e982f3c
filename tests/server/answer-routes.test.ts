/**
 * The answer page and its JSON (issue 52, docs/answers.md): a trace's trail stage by stage, a judged
 * answer with its scores against thresholds and its unsupported text highlighted, the search box's
 * redirects, a trace never seen, and the UI's authentication.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { configSummary } from '../../src/config/summary.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { flagRuleOf, traceOutcome, traceSampling, tracedHandler } from '../../src/roles/trail.ts';
import { Scorer } from '../../src/scorer/scorer.ts';
import { createApiApp } from '../../src/server/api-app.ts';
import type { AnswerViewJson } from '../../src/server/answer-view.ts';
import { openDatabase } from '../../src/store/sqlite.ts';
import { AnswerStore } from '../../src/store/answer-store.ts';
import { createInstruments, instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import { TraceRing } from '../../src/trail/trace-ring.ts';
import type { SampledTriplet } from '../../src/triplet.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';

const TRACE = (i: number) => `0af7651916cd43dd8448eb211c8031a${i}`;

function triplet(i: number, response: string): SampledTriplet {
  return {
    id: `t${i}`,
    traceId: TRACE(i),
    spanId: `b7ad6b716920333${i}`,
    service: 'rag',
    release: '2.1.0',
    route: '/ask',
    responseId: `chatcmpl-${i}`,
    timestamp: new Date().toISOString(),
    query: 'When was the <b>Chimnabai</b> Clock Tower completed?',
    sources: [{ id: 'doc-1', content: 'The Chimnabai Clock Tower was completed in 1896.' }],
    response,
    latency: { durationMs: 10 },
    convention: 'openinference',
    sampling: { weight: 1, stratum: 'all', rule: 'rate' },
  };
}

async function setup(overrides: Record<string, unknown> = {}) {
  const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, ...overrides } });
  const instruments = createInstruments(instrumentsOptionsFromConfig(config));
  const quality = new QualityMonitor({ config, instruments });
  const trail = new TraceRing({ maxTraces: 100 });
  const answers = new AnswerStore({ db: await openDatabase(':memory:'), maxAnswers: 100 });
  const scorer = new Scorer({ judge: new LexicalJudge(), instruments, onRecord: (r, t) => (quality.onRecord(r, t), answers.onRecord(r, t)) });
  const handle = tracedHandler(trail, scorer.handle, flagRuleOf(config));
  for (const [i, response] of [
    [1, 'The Chimnabai Clock Tower was completed in 1896.'],
    [2, 'It was completed in 1856 by Napoleon <script>alert(1)</script>.'],
  ] as const) {
    const t = triplet(i, response);
    traceOutcome(trail, { kind: 'triplet', triplet: t, mapper: 'openinference', explain: { spanName: 'llm', sourcesSource: 'retrieval span' } });
    traceSampling(trail, t, { sampled: true, sampling: t.sampling });
    await handle(t, { attempt: 1 });
  }
  // A generation capture could not complete, and one the rate left out.
  traceOutcome(trail, { kind: 'incomplete', traceId: TRACE(3), spanId: 'c'.repeat(16), mapper: 'custom', missing: ['sources'], explain: { spanName: 'chat', sourcesNote: 'context pattern matched, no documents in it' } });
  traceSampling(trail, triplet(4, 'x'), { sampled: false, rule: 'rate' });
  const app = createApiApp({ registry: instruments.registry, ready: () => true, quality, summary: () => configSummary(config), answers: { trail, answers, role: 'start' }, ...(config.server.apiToken ? { auth: { apiToken: config.server.apiToken, host: '127.0.0.1' } } : {}) });
  return { app, trail, answers };
}

describe('GET /api/answers/<traceId>', () => {
  it('a judged answer: the trail stage by stage, and its scores by judge against thresholds, release and slice', async () => {
    const { app } = await setup();
    const res = await app.request(`/api/answers/${TRACE(1)}`);
    expect(res.status).toBe(200);
    const v = (await res.json()) as AnswerViewJson;
    expect(v.seen).toBe(true);
    expect(v.stages.map((s) => [s.stage, s.outcome])).toEqual([
      ['spans', null],
      ['capture', 'assembled'],
      ['sampling', 'sampled'],
      ['queue', null],
      ['judge', 'judged'],
      ['export', null],
    ]);
    expect(v.verdict).toMatchObject({ stage: 'judge', outcome: 'judged', reason: 'llm' });
    expect(v.answers).toHaveLength(1);
    const a = v.answers[0]!;
    expect(a).toMatchObject({ query: expect.stringContaining('Chimnabai'), release: '2.1.0', route: '/ask', responseId: 'chatcmpl-1' });
    expect(a.metrics.length).toBeGreaterThan(0);
    expect(a.metrics.every((m) => m.judge === 'llm' && (m.threshold === null || typeof m.threshold === 'number'))).toBe(true);
  });

  it('an incomplete generation names what was missing and why', async () => {
    const { app } = await setup();
    const v = (await (await app.request(`/api/answers/${TRACE(3)}`)).json()) as AnswerViewJson;
    expect(v.verdict).toMatchObject({ stage: 'capture', outcome: 'incomplete', reason: 'sources' });
    expect(v.verdict!.detail).toContain('context pattern matched, no documents in it');
  });

  it('a triplet the rate left out says the rate decided', async () => {
    const { app } = await setup();
    const v = (await (await app.request(`/api/answers/${TRACE(4)}`)).json()) as AnswerViewJson;
    expect(v.verdict).toMatchObject({ stage: 'sampling', outcome: 'not_sampled', reason: 'rate' });
    expect(v.verdict!.detail).toContain('sampling.rate');
  });

  it('a trace never seen: 404, says so, and lists what was seen recently', async () => {
    const { app } = await setup();
    const res = await app.request(`/api/answers/${'f'.repeat(32)}`);
    expect(res.status).toBe(404);
    const v = (await res.json()) as AnswerViewJson;
    expect(v.seen).toBe(false);
    expect(v.recent!.stats).toMatchObject({ traces: 4, capacity: 100 });
    expect(v.recent!.traces.map((t) => t.traceId)).toContain(TRACE(4));
  });

  it('finds an answer by the provider response id, and refuses what is not a trace id', async () => {
    const { app } = await setup();
    const v = (await (await app.request('/api/answers?responseId=chatcmpl-2')).json()) as AnswerViewJson;
    expect(v.traceId).toBe(TRACE(2));
    expect((await app.request('/api/answers/not-a-trace')).status).toBe(400);
    expect((await app.request('/api/answers?responseId=nope')).status).toBe(404);
  });
});

describe('/answers pages', () => {
  it('renders the trail, the highlighted response and the scores, escaped', async () => {
    const { app } = await setup();
    const res = await app.request(`/answers/${TRACE(2)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).toContain('data-stage="judge"');
    expect(html).toContain('&lt;b&gt;Chimnabai&lt;/b&gt;');
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toMatch(/<mark class="unsupported">[^<]*1856/);
    expect(html).toContain('release 2.1.0');
  });

  it('the search box: a trace id (any case, dashes) or a response id leads to the page', async () => {
    const { app } = await setup();
    const upper = TRACE(1).toUpperCase();
    const byTrace = await app.request(`/answers?q=${upper}`);
    expect(byTrace.status).toBe(303);
    expect(byTrace.headers.get('location')).toBe(`/answers/${TRACE(1)}`);
    const byResponse = await app.request('/answers?q=chatcmpl-1');
    expect(byResponse.headers.get('location')).toBe(`/answers/${TRACE(1)}`);
    expect((await app.request('/answers')).status).toBe(400);
  });

  it('a trace never seen answers 404 with a page that says so', async () => {
    const { app } = await setup();
    const res = await app.request(`/answers/${'e'.repeat(32)}`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('Not seen.');
  });

  it('is authenticated like every page and /api/* route', async () => {
    const { app } = await setup({ server: { apiToken: 'tok-0123456789abcdef0123' } });
    expect((await app.request(`/answers/${TRACE(1)}`)).status).toBe(401);
    expect((await app.request(`/api/answers/${TRACE(1)}`)).status).toBe(401);
    const ok = await app.request(`/api/answers/${TRACE(1)}`, { headers: { authorization: 'Bearer tok-0123456789abcdef0123' } });
    expect(ok.status).toBe(200);
  });
});

describe('the assembler\'s part alone', () => {
  it('serves /answers and /api/answers without a quality monitor, behind the token, and says which part it holds', async () => {
    const trail = new TraceRing();
    traceSampling(trail, triplet(5, 'x'), { sampled: true, sampling: triplet(5, 'x').sampling });
    const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false } } });
    const instruments = createInstruments(instrumentsOptionsFromConfig(config));
    const app = createApiApp({ registry: instruments.registry, ready: () => true, auth: { apiToken: 'tok-0123456789abcdef0123', host: '127.0.0.1' }, answers: { trail, role: 'assembler' } });
    expect((await app.request(`/api/answers/${TRACE(5)}`)).status).toBe(401);
    const v = (await (await app.request(`/api/answers/${TRACE(5)}`, { headers: { authorization: 'Bearer tok-0123456789abcdef0123' } })).json()) as AnswerViewJson;
    expect(v.verdict).toMatchObject({ stage: 'sampling', outcome: 'sampled' });
    expect(v.partial).toContain('This assembler holds');
    expect((await app.request('/metrics')).status).toBe(200);
  });
});
