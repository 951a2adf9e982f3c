/**
 * Done-when of issue 46 (end-user feedback in), through `ragwatch start`: malformed or unauthenticated
 * feedback gets a 4xx with a reason; the feedback metrics are right on a crafted set with known answers
 * (sampled answers or not); feedback posted before and after a restart joins its answer (the store);
 * feedback read off the answer's spans is counted, redacted and joined; and it shows on the examples
 * page next to the judge's verdict and in the users' agreement of the calibration page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { feedbackRoute } from '../../src/roles/feedback.ts';
import { startApp, type RunningApp } from '../../src/roles/start.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';
import { CLOCK_TOWER, openInferenceTrace, postOtlp, type RagRequest } from '../helpers/otlp.ts';
import { metricValue, waitFor } from '../helpers/process.ts';

const TOKEN = 'feedback-test-token-0123456789';
const CANARY = 'canary.person@example-pii.org';
const dataDir = mkdtempSync(join(tmpdir(), 'rw-feedback-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Running {
  app: RunningApp;
  scored: Array<{ record: ScoreRecord; triplet: SampledTriplet }>;
  post(body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }>;
  trace(req: RagRequest): Promise<{ traceId: string; llmSpanId: string }>;
  metrics(): Promise<string>;
}

async function start(overrides: Record<string, unknown> = {}): Promise<Running> {
  const config = loadConfig({ env: {}, overrides: { server: { otlpPort: 0, httpPort: 0, otlpGrpc: false, bearerToken: TOKEN }, capture: { traceIdleMs: 50 }, metrics: { processMetrics: false }, store: { dataDir }, ...overrides } });
  const app = await startApp(config, silentLogger, { judge: new LexicalJudge() });
  const scored: Running['scored'] = [];
  app.pipeline.sinks.add({ onRecord: (record, triplet) => void (triplet && scored.push({ record, triplet })) });
  await waitFor(() => app.pipeline.ready, 30_000);
  const base = `http://127.0.0.1:${app.otlp.port}`;
  return {
    app,
    scored,
    post: async (body, headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }) => {
      const res = await fetch(`${base}/v1/ragwatch/feedback`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    trace: async (req) => {
      const { body, traceId, llmSpanId } = openInferenceTrace(req);
      const res = await postOtlp(`${base}/v1/traces`, JSON.stringify(body), 'application/json', { authorization: `Bearer ${TOKEN}` });
      expect(res.status).toBe(200);
      return { traceId, llmSpanId };
    },
    metrics: () => app.pipeline.instruments.registry.metrics(),
  };
}

const ui = (app: RunningApp, path: string) => fetch(`http://127.0.0.1:${app.http.port}${path}`);

describe('POST /v1/ragwatch/feedback', () => {
  it('refuses malformed or unauthenticated feedback with a 4xx and the reason', async () => {
    const r = await start();
    try {
      const trace = 'ab'.repeat(16);
      expect(await r.post({ traceId: trace, thumbs: 'up' }, { 'content-type': 'application/json' })).toMatchObject({ status: 401, body: { error: 'missing or invalid bearer token' } });
      expect(await r.post({ traceId: trace, thumbs: 'up' }, { authorization: 'Bearer wrong-token-0123456789', 'content-type': 'application/json' })).toMatchObject({ status: 401 });
      expect((await r.post({ traceId: trace, thumbs: 'up' }, { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' })).status).toBe(415);
      const bad = async (body: unknown) => {
        const res = await r.post(body);
        expect(res.status).toBe(400);
        return String(res.body.error);
      };
      expect(await bad('{not json')).toMatch(/not JSON/);
      expect(await bad({ thumbs: 'up' })).toMatch(/traceId or responseId is required/);
      expect(await bad({ traceId: trace })).toMatch(/exactly one of thumbs .* or rating/);
      expect(await bad({ traceId: trace, thumbs: 'up', rating: 5 })).toMatch(/exactly one of/);
      expect(await bad({ traceId: trace, rating: 7 })).toMatch(/^rating: /);
      expect(await bad({ traceId: trace, rating: 2.5 })).toMatch(/^rating: /);
      expect(await bad({ traceId: 'not-a-trace', thumbs: 'up' })).toMatch(/^traceId: a trace id/);
      expect(await bad({ traceId: trace, thumbs: 'meh' })).toMatch(/^thumbs: "meh" is neither a positive/);
      expect(await bad({ traceId: trace, thumbs: 'up', user: 'x' })).toMatch(/unrecognized key/i);
      const huge = await r.post({ traceId: trace, thumbs: 'up', comment: 'x'.repeat(20_000) });
      expect([400, 413]).toContain(huge.status);
      expect(metricValue(await r.metrics(), 'ragwatch_feedback_total', { value: 'positive' }) ?? 0).toBe(0);
    } finally {
      await r.app.shutdown();
    }
  });

  it('without a token, refuses feedback on a non-loopback address (403, the reason names the key)', () => {
    const server = loadConfig({ env: {}, overrides: { server: { host: '0.0.0.0' } } }).server;
    const route = feedbackRoute(server, { hub: {} } as never);
    expect(route.refusal).toMatch(/server\.bearerToken/);
    expect(feedbackRoute(loadConfig({ env: {} }).server, { hub: {} } as never).refusal).toBeUndefined();
  });
});

describe('feedback joined with the verdicts, across a restart', () => {
  let scoredTrace: { traceId: string; llmSpanId: string };
  let ungroundedTrace: { traceId: string; llmSpanId: string };

  it('counts a crafted set exactly (sampled or not), redacts comments, joins by trace id and shows it next to the verdict', async () => {
    // Sampling 0: the judge sees only what a rule forces in (one generation model): the rest is never judged.
    const r = await start({ sampling: { rate: 0, rules: [{ name: 'judged', action: 'in', match: { model: 'judged-model' } }] } });
    try {
      scoredTrace = await r.trace({ ...CLOCK_TOWER, service: 'rag-api', release: '1.2.0', model: 'judged-model' });
      ungroundedTrace = await r.trace({ ...CLOCK_TOWER, response: 'The clock tower was built by Martians in 1720. It is made of cheese.', service: 'rag-api', release: '1.2.0', model: 'judged-model' });
      const unsampled = await r.trace({ ...CLOCK_TOWER, service: 'rag-api', release: '1.2.0' });
      await waitFor(() => r.scored.length >= 2, 20_000);
      expect(r.scored.map((s) => s.record.traceId).sort()).toEqual([scoredTrace.traceId, ungroundedTrace.traceId].sort());
      // The crafted set: 3 positive (up, like, rating 5), 3 negative (down, rating 1, rating 2), 1 neutral (rating 3); one on an unsampled answer.
      const items = [
        { traceId: scoredTrace.traceId, thumbs: 'up', comment: `Great, mail me at ${CANARY}` },
        { traceId: ungroundedTrace.traceId, thumbs: 'down', comment: 'This is wrong' },
        { traceId: unsampled.traceId, rating: 1 },
        { traceId: unsampled.traceId, rating: 2, id: 'same-user-twice' },
        { traceId: unsampled.traceId, rating: 3 },
        { traceId: unsampled.traceId, thumbs: 'like' },
        { traceId: unsampled.traceId, rating: 5 },
      ];
      for (const body of items) expect((await r.post(body)).status).toBe(202);
      const m = await r.metrics();
      const total = (value: string) => metricValue(m, 'ragwatch_feedback_total', { service: 'rag-api', release: '1.2.0', value }) ?? 0;
      expect([total('positive'), total('neutral'), total('negative')]).toEqual([3, 1, 3]);
      // Negative share over the window: 3 of 7.
      expect(metricValue(m, 'ragwatch_feedback_negative_ratio', { service: 'rag-api' })).toBeCloseTo(3 / 7, 12);
      const fb = (await (await ui(r.app, `/api/feedback?traceId=${scoredTrace.traceId}`)).json()) as { feedback: Array<{ comment?: string; polarity: string; service: string; release: string }> };
      expect(fb.feedback).toHaveLength(1);
      expect(fb.feedback[0]).toMatchObject({ polarity: 'positive', service: 'rag-api', release: '1.2.0', comment: 'Great, mail me at <EMAIL_1>' });
      expect(JSON.stringify(fb)).not.toContain(CANARY);
      const page = await (await ui(r.app, '/examples')).text();
      expect(page).toMatch(/<article data-trace-id="[0-9a-f]{32}">[\s\S]*?<p class="feedback"><b>Users:<\/b> <span class="fb-negative" data-polarity="negative">thumbs down: “This is wrong”<\/span>/);
      expect(page).not.toContain(CANARY);
    } finally {
      await r.app.shutdown();
    }
  });

  it('after a restart, feedback posted before and after it joins the answers scored before it', async () => {
    const r = await start();
    try {
      // Posted after the restart, on the grounded answer scored before it (the same user's later thumbs up).
      expect((await r.post({ traceId: scoredTrace.traceId, rating: 4 })).status).toBe(202);
      const cal = (await (await ui(r.app, '/api/calibration')).json()) as { agreement: Array<{ metric: string; judge: string; users: { auc: number; positives: number; negatives: number } | null }> };
      const grounded = cal.agreement.find((a) => a.metric === 'groundedness' && a.judge === 'llm')!;
      // Both answers scored before the restart carry a user label: the grounded one positive (its latest, posted now), the other negative (posted before).
      expect(grounded.users).toMatchObject({ positives: 1, negatives: 1, auc: 1 });
      const after = (await (await ui(r.app, `/api/feedback?traceId=${scoredTrace.traceId}`)).json()) as { feedback: unknown[] };
      expect(after.feedback).toHaveLength(2);
      // The window of the negative share was replayed from the store: 3 of 8 now.
      expect(metricValue(await r.metrics(), 'ragwatch_feedback_negative_ratio', { service: 'rag-api' })).toBeCloseTo(3 / 8, 12);
      const html = await (await ui(r.app, '/calibration')).text();
      expect(html).toContain('<section id="agreement">');
      expect(html).toMatch(/<tr data-metric="groundedness" data-judge="llm">.*<td class="users" data-auc="1\.0000" data-good="1" data-bad="1">/);
    } finally {
      await r.app.shutdown();
    }
  });

  it('reads feedback off the answer spans: attributes, events and human annotations, counted and joined', async () => {
    const r = await start();
    try {
      const onAttr = await r.trace({ ...CLOCK_TOWER, service: 'span-app', rootAttributes: { 'user.feedback': 'thumbs_down', 'user.feedback.comment': `wrong, ask ${CANARY}` } });
      const onEvent = await r.trace({ ...CLOCK_TOWER, service: 'span-app', rootEvents: [{ name: 'user_feedback', attributes: { rating: 5 } }] });
      const onAnnotation = await r.trace({ ...CLOCK_TOWER, service: 'span-app', rootAttributes: { 'annotations.0.annotation.name': 'user_feedback', 'annotations.0.annotation.label': 'thumbs_up', 'annotations.0.annotation.annotator_kind': 'HUMAN', 'annotations.1.annotation.name': 'user_feedback', 'annotations.1.annotation.label': 'thumbs_down', 'annotations.1.annotation.annotator_kind': 'LLM' } });
      await waitFor(async () => (metricValue(await r.metrics(), 'ragwatch_feedback_total', { service: 'span-app', value: 'positive' }) ?? 0) >= 2, 20_000);
      const m = await r.metrics();
      expect(metricValue(m, 'ragwatch_feedback_total', { service: 'span-app', value: 'positive' })).toBe(2);
      // The LLM-made annotation is not an end user's: one negative, from the attribute.
      expect(metricValue(m, 'ragwatch_feedback_total', { service: 'span-app', value: 'negative' })).toBe(1);
      const get = async (t: string) => ((await (await ui(r.app, `/api/feedback?traceId=${t}`)).json()) as { feedback: Array<{ kind: string; value: number; comment?: string; source: string }> }).feedback;
      expect(await get(onAttr.traceId)).toEqual([expect.objectContaining({ kind: 'thumbs', value: 0, comment: 'wrong, ask <EMAIL_1>', source: 'span' })]);
      expect(await get(onEvent.traceId)).toEqual([expect.objectContaining({ kind: 'rating', value: 5 })]);
      expect(await get(onAnnotation.traceId)).toEqual([expect.objectContaining({ kind: 'thumbs', value: 1 })]);

      // The same spans delivered again (an exporter's retry): the item is not counted a second time.
      const { body } = openInferenceTrace({ ...CLOCK_TOWER, service: 'span-app', rootAttributes: { 'user.feedback': 'thumbs_down' } });
      for (let i = 0; i < 2; i++) expect((await postOtlp(`http://127.0.0.1:${r.app.otlp.port}/v1/traces`, JSON.stringify(body), 'application/json', { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
      await waitFor(async () => (metricValue(await r.metrics(), 'ragwatch_feedback_dropped_total', { reason: 'duplicate' }) ?? 0) === 1, 20_000);
      expect(metricValue(await r.metrics(), 'ragwatch_feedback_total', { service: 'span-app', value: 'negative' })).toBe(2);
    } finally {
      await r.app.shutdown();
    }
  });
});
