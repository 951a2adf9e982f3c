/**
 * Feedback on spans on the Kafka paths (issue 46), with a real broker:
 * - `ingest.kafka`: OTLP/JSON traces on the Collector kafka exporter's topic (produced here as the exporter
 *   writes them: an ExportTraceServiceRequest per message) carry the user's feedback on their request span
 *   and in a feedback event; `ragwatch start` reads it as it does over OTLP/HTTP — counted, comment
 *   redacted, kept as `source: span` and joined to the answer it scored;
 * - the in-process plugin producing to Kafka: feedback on the host's spans is counted in the host and
 *   published on the labels topic (as a split-mode collector does), and a `ragwatch scorer` joins it to
 *   the answer it scored from the same host's triplets.
 */
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { LazyPipeline } from '../../src/roles/lazy-pipeline.ts';
import { RagwatchSpanProcessor } from '../../src/roles/span-processor.ts';
import { startApp } from '../../src/roles/start.ts';
import type { ScoreRecord } from '../../src/triplet.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.ts';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';
import { CLOCK_TOWER, openInferenceTrace } from '../helpers/otlp.ts';
import { metricValue, waitFor } from '../helpers/process.ts';
import { oracleResponder } from '../judges/helpers/oracle.ts';
import { readTopic, roleConfig, scrape, startRole, type RoleProcess, type TopicReader } from './kafka-process.ts';

const CANARY = 'canary.person@example-pii.org';

interface UsersAgreement {
  metric: string;
  judge: string;
  users: { positives: number; negatives: number } | null;
}

describe.skipIf(!haveKafka('tests/integration/kafka-span-feedback.test.ts'))('feedback on spans read on the Kafka paths', () => {
  let kafka: KafkaTestCluster;
  let judge: FakeOpenAI;
  const dir = mkdtempSync(join(tmpdir(), 'rw-kafka-span-feedback-'));
  const procs: RoleProcess[] = [];
  const readers: TopicReader[] = [];

  beforeAll(async () => {
    kafka = await startKafkaCluster({ nodes: 1 });
    judge = await startFakeOpenAI(oracleResponder());
  }, 180_000);
  afterAll(async () => {
    for (const r of readers) await r.stop();
    for (const p of procs) await p.cleanup();
    await kafka?.stop();
    await judge?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ingest.kafka: feedback on the topic spans is counted, redacted and joined in ragwatch start', async () => {
    const topic = `otlp-spans-${randomUUID().slice(0, 8)}`;
    await kafka.createTopic(topic, 2);
    const config = loadConfig({
      env: {},
      overrides: {
        server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0 },
        metrics: { processMetrics: false },
        capture: { traceIdleMs: 200 },
        store: { dataDir: join(dir, 'start') },
        transport: { kafka: { brokers: kafka.brokers } },
        ingest: { kafka: { enabled: true, groupId: `${topic}-group`, topics: { traces: [topic] }, initialOffset: 'earliest' } },
      },
    });
    const app = await startApp(config, silentLogger, { judge: new LexicalJudge() });
    const scored: ScoreRecord[] = [];
    app.pipeline.sinks.add({ onRecord: (record) => void scored.push(record) });
    try {
      await waitFor(() => app.pipeline.ready && app.otlpTopics?.consumer.running, 60_000, 200);
      const thumbs = openInferenceTrace({ ...CLOCK_TOWER, service: 'kafka-app', rootAttributes: { 'user.feedback': 'thumbs_down', 'user.feedback.comment': `wrong, write to ${CANARY}` } });
      const rated = openInferenceTrace({ ...CLOCK_TOWER, service: 'kafka-app', rootEvents: [{ name: 'user_feedback', attributes: { rating: 5 } }] });
      const producer = new Kafka({ brokers: kafka.brokers, logLevel: logLevel.NOTHING }).producer();
      await producer.connect();
      await producer.send({ topic, acks: -1, messages: [thumbs, rated].map((t) => ({ key: t.traceId, value: JSON.stringify(t.body) })) });
      await producer.disconnect();
      await waitFor(() => scored.length >= 2, 30_000, 100);
      const m = await app.pipeline.instruments.registry.metrics();
      expect(metricValue(m, 'ragwatch_feedback_total', { service: 'kafka-app', value: 'negative' })).toBe(1);
      expect(metricValue(m, 'ragwatch_feedback_total', { service: 'kafka-app', value: 'positive' })).toBe(1);
      const get = async (t: string) => ((await (await fetch(`http://127.0.0.1:${app.http.port}/api/feedback?traceId=${t}`)).json()) as { feedback: Array<Record<string, unknown>> }).feedback;
      const onThumbs = await get(thumbs.traceId);
      expect(onThumbs).toEqual([expect.objectContaining({ kind: 'thumbs', value: 0, source: 'span', comment: 'wrong, write to <EMAIL_1>' })]);
      expect(await get(rated.traceId)).toEqual([expect.objectContaining({ kind: 'rating', value: 5, source: 'span' })]);
      // Joined: the users' label of each scored answer (bad for the thumbs down, good for the 5).
      const points = app.quality.feedback!.userPoints();
      const tripletOf = (traceId: string) => scored.find((r) => r.traceId === traceId)!.tripletId;
      expect(new Set(points.filter((p) => p.tripletId === tripletOf(thumbs.traceId)).map((p) => p.label))).toEqual(new Set([0]));
      expect(new Set(points.filter((p) => p.tripletId === tripletOf(rated.traceId)).map((p) => p.label))).toEqual(new Set([1]));
    } finally {
      await app.shutdown();
    }
  }, 120_000);

  it('the plugin producing to Kafka: feedback counted in the host, on the labels topic, joined by the scorer', async () => {
    const prefix = `psf-${randomUUID().slice(0, 8)}`;
    const base = roleConfig(kafka.brokers, prefix, {}, judge.baseURL);
    const scorer = await startRole('scorer', { ...base, store: { dataDir: join(dir, 'scorer') } }, 90_000);
    procs.push(scorer);
    await waitFor(async () => (await fetch(`${scorer.apiUrl}/readyz`)).status === 200, 90_000, 300);
    const labels = await readTopic(kafka.brokers, (base as { transport: { kafka: { topics: { labels: string } } } }).transport.kafka.topics.labels);
    readers.push(labels);

    const processor = new RagwatchSpanProcessor({ config: { ...base, capture: { traceIdleMs: 50 } }, scheduledDelayMillis: 20 });
    expect(processor.pipeline).toBeInstanceOf(LazyPipeline);
    const provider = new TracerProvider({ spanProcessors: [processor] });
    const tracer = provider.getTracer('host-app');
    const answer = (i: number, rootAttributes: Record<string, string>) => {
      const root = tracer.startSpan('rag-request', { attributes: { 'openinference.span.kind': 'CHAIN', ...rootAttributes } });
      const ctx = trace.setSpan(ROOT_CONTEXT, root);
      tracer.startSpan('retrieve', { attributes: { 'openinference.span.kind': 'RETRIEVER', 'input.value': `What is item ${i}?`, 'retrieval.documents.0.document.content': `Item ${i} is a red ball made in 2020.` } }, ctx).end();
      tracer.startSpan('llm', { attributes: { 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o-mini', 'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': `What is item ${i}?`, 'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': `Item ${i} is a red ball.` } }, ctx).end();
      root.end();
      return root.spanContext().traceId;
    };
    const down = answer(1, { 'user.feedback': 'thumbs_down', 'user.feedback.comment': `wrong, write to ${CANARY}` });
    const up = answer(2, { 'user.feedback': 'thumbs_up' });
    await processor.forceFlush();
    const host = await processor.pipeline.instruments.registry.metrics();
    expect(metricValue(host, 'ragwatch_feedback_total', { value: 'negative' })).toBe(1);
    expect(metricValue(host, 'ragwatch_feedback_total', { value: 'positive' })).toBe(1);

    // On the labels topic, keyed feedback\0<id>, the comment redacted in the host.
    await waitFor(() => labels.messages.filter((m) => String(m.key).startsWith('feedback\u0000')).length >= 2, 30_000, 100);
    const items = labels.messages.filter((m) => String(m.key).startsWith('feedback\u0000')).map((m) => (JSON.parse(String(m.value)) as { feedback: Record<string, unknown> }).feedback);
    expect(items.map((f) => [f.traceId, f.polarity, f.source]).sort()).toEqual([[down, 'negative', 'span'], [up, 'positive', 'span']].sort());
    expect(items.find((f) => f.traceId === down)!.comment).toBe('wrong, write to <EMAIL_1>');
    for (const m of labels.messages) expect(String(m.value)).not.toContain(CANARY);

    // The scorer judged both answers and joined the users' verdicts to them.
    const agreement = async () => ((await (await fetch(`${scorer.apiUrl}/api/calibration`)).json()) as { agreement: UsersAgreement[] }).agreement.find((r) => r.metric === 'groundedness' && r.judge === 'llm');
    const joined = await waitFor(async () => {
      const r = await agreement();
      return r?.users && r.users.positives === 1 && r.users.negatives === 1 ? r : undefined;
    }, 60_000, 300);
    expect(joined.users).toMatchObject({ positives: 1, negatives: 1 });
    const onDown = (await (await fetch(`${scorer.apiUrl}/api/feedback?traceId=${down}`)).json()) as { feedback: Array<Record<string, unknown>> };
    expect(onDown.feedback).toEqual([expect.objectContaining({ polarity: 'negative', source: 'span' })]);
    // Counted once, in the host where it was read: never again by the scorer.
    expect(await scrape(scorer.apiUrl, 'ragwatch_feedback_total')).toBe(0);
    await provider.shutdown();
    await processor.shutdown();
  }, 240_000);
});
