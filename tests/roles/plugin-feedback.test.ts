/**
 * Feedback on spans through the in-process plugin forwarding to `ragwatch start` (issue 46): feedback the
 * host puts on the answer's trace — a thumbs attribute with a comment on the request span, and a rating
 * event on a span made later in the same trace — is read in the host, its comment redacted there, and
 * posted to the receiver's feedback API, where it is counted once, kept as `source: span` and joined to
 * the answer the receiver scored. A receiver refusing the token drops and counts it in the host.
 */
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { ForwardingPipeline } from '../../src/roles/forwarding-pipeline.ts';
import { RagwatchSpanProcessor } from '../../src/roles/span-processor.ts';
import { startApp, type RunningApp } from '../../src/roles/start.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';
import { metricValue, waitFor } from '../helpers/process.ts';

const TOKEN = 'plugin-feedback-token-0123456789';
const CANARY = 'canary.person@example-pii.org';

/** One RAG request made with the host's tracer, the user's thumbs on the request span; returns the request span's context. */
function request(provider: TracerProvider, i: number, rootAttributes: Record<string, string> = {}) {
  const tracer = provider.getTracer('host-app');
  const root = tracer.startSpan('rag-request', { attributes: { 'openinference.span.kind': 'CHAIN', ...rootAttributes } });
  const ctx = trace.setSpan(ROOT_CONTEXT, root);
  tracer.startSpan('retrieve', { attributes: { 'openinference.span.kind': 'RETRIEVER', 'input.value': `What is item ${i}?`, 'retrieval.documents.0.document.content': `Item ${i} is a red ball made in 2020.` } }, ctx).end();
  tracer.startSpan('llm', { attributes: { 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o-mini', 'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': `What is item ${i}?`, 'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': `Item ${i} is a red ball.` } }, ctx).end();
  root.end();
  return ctx;
}

describe('feedback on spans through the forwarding plugin', () => {
  let app: RunningApp;
  const dataDir = mkdtempSync(join(tmpdir(), 'rw-plugin-feedback-'));
  const scored: Array<{ record: ScoreRecord; triplet: SampledTriplet }> = [];

  beforeAll(async () => {
    const config = loadConfig({ env: {}, overrides: { server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0, bearerToken: TOKEN }, metrics: { processMetrics: false }, store: { dataDir } } });
    app = await startApp(config, silentLogger, { judge: new LexicalJudge() });
    app.pipeline.sinks.add({ onRecord: (record, triplet) => void (triplet && scored.push({ record, triplet })) });
    await waitFor(() => app.pipeline.ready, 30_000);
  });
  afterAll(async () => {
    await app?.shutdown();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is read in the host, redacted there, counted once by the receiver and joined to the scored answer', async () => {
    const processor = new RagwatchSpanProcessor({ config: { capture: { traceIdleMs: 50 }, metrics: { processMetrics: false }, transport: { http: { endpoint: `http://127.0.0.1:${app.otlp.port}`, bearerToken: TOKEN, lingerMs: 50 } } }, scheduledDelayMillis: 20 });
    expect(processor.pipeline).toBeInstanceOf(ForwardingPipeline);
    const forwarder = (processor.pipeline as ForwardingPipeline).feedback!;
    const provider = new TracerProvider({ spanProcessors: [processor] });
    const thumbs = request(provider, 1, { 'user.feedback': 'thumbs_down', 'user.feedback.comment': `wrong, write to ${CANARY}` });
    const rated = request(provider, 2);
    await processor.forceFlush();
    await waitFor(() => scored.length >= 2, 15_000);
    // Later, in the same trace: the user rates the second answer (a span of its own, with a feedback event).
    const later = provider.getTracer('host-app').startSpan('feedback', {}, rated);
    later.addEvent('user_feedback', { rating: 1 });
    later.end();
    await processor.forceFlush();
    expect(forwarder.queued).toBe(0);
    const traceOf = (ctx: typeof thumbs) => trace.getSpan(ctx)!.spanContext().traceId;
    const receiver = await app.pipeline.instruments.registry.metrics();
    expect(metricValue(receiver, 'ragwatch_feedback_total', { value: 'negative' })).toBe(2);
    expect(metricValue(receiver, 'ragwatch_feedback_total', { value: 'positive' }) ?? 0).toBe(0);
    expect(metricValue(await processor.pipeline.instruments.registry.metrics(), 'ragwatch_feedback_forwarded_total')).toBe(2);
    const get = async (t: string) => ((await (await fetch(`http://127.0.0.1:${app.http.port}/api/feedback?traceId=${t}`)).json()) as { feedback: Array<Record<string, unknown>> }).feedback;
    const onThumbs = await get(traceOf(thumbs));
    expect(onThumbs).toEqual([expect.objectContaining({ kind: 'thumbs', value: 0, polarity: 'negative', source: 'span', comment: 'wrong, write to <EMAIL_1>' })]);
    expect(JSON.stringify(onThumbs)).not.toContain(CANARY);
    expect(await get(traceOf(rated))).toEqual([expect.objectContaining({ kind: 'rating', value: 1, source: 'span' })]);
    // Joined: each judged metric of both answers now has the users' label (bad).
    const points = app.quality.feedback!.userPoints();
    const answers = new Set(scored.filter((s) => [traceOf(thumbs), traceOf(rated)].includes(s.record.traceId)).map((s) => s.record.tripletId));
    expect(answers.size).toBe(2);
    expect(new Set(points.filter((p) => answers.has(p.tripletId)).map((p) => p.tripletId))).toEqual(answers);
    expect(points.filter((p) => answers.has(p.tripletId)).every((p) => p.label === 0)).toBe(true);
    await provider.shutdown();
  });

  it('a receiver refusing the token: dropped in the host and counted, nothing counted there', async () => {
    const before = metricValue(await app.pipeline.instruments.registry.metrics(), 'ragwatch_feedback_total', { value: 'positive' }) ?? 0;
    const processor = new RagwatchSpanProcessor({ config: { capture: { traceIdleMs: 50 }, metrics: { processMetrics: false }, transport: { http: { endpoint: `http://127.0.0.1:${app.otlp.port}`, bearerToken: 'not-the-right-token-at-all', lingerMs: 50 } } }, scheduledDelayMillis: 20 });
    const provider = new TracerProvider({ spanProcessors: [processor] });
    request(provider, 3, { 'user.feedback': 'thumbs_up' });
    await processor.forceFlush();
    const host = await processor.pipeline.instruments.registry.metrics();
    expect(metricValue(host, 'ragwatch_feedback_forward_dropped_total', { reason: 'rejected_401' })).toBe(1);
    expect(metricValue(host, 'ragwatch_feedback_forwarded_total')).toBe(0);
    expect(metricValue(await app.pipeline.instruments.registry.metrics(), 'ragwatch_feedback_total', { value: 'positive' }) ?? 0).toBe(before);
    await provider.shutdown();
  });
});
