/**
 * Poison messages against a real `ragwatch scorer` process: truncated JSON, a 2 MB value, a wrong
 * schema version, and a triplet the judge cannot score (malformed judge output from the fake
 * OpenAI-compatible server) all end in the DLQ with `error`/`stage` headers, while the valid
 * messages around them on the same partition are scored and the scorer keeps running. The unscorable
 * triplet also reaches an OTLP logs receiver as `gen_ai.evaluation.result` records with `error.type`
 * (one per metric the judge was to score, parented to its generation span); the decode poisons, which
 * name no answer, send none.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel, type IHeaders } from 'kafkajs';
import { SCHEMA_VERSION, type SampledTriplet, type ScoreRecord } from '../../src/triplet.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.ts';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { startOtlpLogsReceiver, type OtlpLogsReceiver } from '../helpers/otlp-logs-receiver.ts';
import { judgedMetrics } from '../../src/evaluation-export/create.ts';
import { BUILTIN_REGISTRY } from '../../src/metric-registry.ts';
import { waitFor } from '../helpers/process.ts';
import { oracleResponder } from '../judges/helpers/oracle.ts';
import { readTopic, roleConfig, scrape, startRole, type RoleProcess, type TopicReader } from './kafka-process.ts';

const enabled = haveKafka('tests/integration/kafka-poison.test.ts');

function header(headers: IHeaders | undefined, name: string): string | undefined {
  const v = headers?.[name];
  return v === undefined ? undefined : String(Array.isArray(v) ? v[0] : v);
}

function triplet(query: string): SampledTriplet {
  const traceId = randomUUID().replaceAll('-', '');
  return {
    id: `id-${traceId}`,
    traceId,
    spanId: '00f067aa0ba902b7',
    service: 'rag',
    timestamp: new Date().toISOString(),
    query,
    sources: [{ content: 'The Eiffel Tower is 330 metres tall and stands in Paris.' }],
    response: 'The Eiffel Tower is 330 metres tall.',
    latency: { durationMs: 800 },
    convention: 'openinference',
    sampling: { weight: 1, stratum: 'all', rule: 'rate' },
  };
}

describe.skipIf(!enabled)('poison messages reach the DLQ and the partition keeps flowing', () => {
  let broker: KafkaTestCluster;
  let judge: FakeOpenAI;
  let scorer: RoleProcess | undefined;
  let receiver: OtlpLogsReceiver;
  const readers: TopicReader[] = [];

  beforeAll(async () => {
    broker = await startKafkaCluster();
    receiver = await startOtlpLogsReceiver();
    // The judge answers garbage for one triplet: it must fail to the DLQ, never become a score.
    judge = await startFakeOpenAI(oracleResponder((answer, _p, req) => (JSON.stringify(req.body ?? {}).includes('JUDGE-GARBAGE') ? 'no JSON here, sorry' : answer)));
  }, 180_000);
  afterAll(async () => {
    for (const r of readers) await r.stop();
    await scorer?.cleanup();
    await broker?.stop();
    await judge?.close();
    await receiver?.close();
  });

  it('DLQs truncated JSON, a 2 MB value, a wrong schema version and an unscorable triplet', async () => {
    const prefix = `poison-${randomUUID().slice(0, 8)}`;
    const config = { ...roleConfig(broker.brokers, prefix, {}, judge.baseURL), evaluationExport: { otlp: { endpoint: receiver.httpUrl, scheduledDelayMs: 50 } } };
    const topics = { triplets: `${prefix}.triplets.v1`, scores: `${prefix}.scores.v1`, dlq: `${prefix}.triplets.dlq` };
    // The 2 MB poison needs a topic that takes it (a broker's default refuses records over 1 MB): the
    // scorer's own limit (consumer.maxMessageBytes) is what is tested. The scorer leaves an existing topic as it is.
    await broker.createTopic(topics.triplets, 4, { 'max.message.bytes': String(4 * 1024 * 1024) });
    scorer = await startRole('scorer', config);
    const raw = new Kafka({ brokers: broker.brokers, logLevel: logLevel.NOTHING }).producer();
    await raw.connect();
    const key = 'one-key-one-partition';
    const h = { 'schema-version': SCHEMA_VERSION, 'content-type': 'application/json' };
    const first = triplet('How tall is the Eiffel Tower?');
    const unscorable = triplet('JUDGE-GARBAGE: how tall is it?');
    const last = triplet('Where is the Eiffel Tower?');
    await raw.send({
      topic: topics.triplets,
      acks: -1,
      messages: [
        { key, value: JSON.stringify(first), headers: h },
        { key, value: JSON.stringify(first).slice(0, 40), headers: h },
        { key, value: Buffer.alloc(2 * 1024 * 1024, 0x7b), headers: h },
        { key, value: JSON.stringify(triplet('old schema')), headers: { ...h, 'schema-version': '0' } },
        { key, value: JSON.stringify(unscorable), headers: h },
        { key, value: JSON.stringify(last), headers: h },
      ],
    });
    await raw.disconnect();

    const dlq = await readTopic(broker.brokers, topics.dlq);
    const scores = await readTopic(broker.brokers, topics.scores);
    readers.push(dlq, scores);
    await waitFor(() => dlq.messages.length >= 4 && scores.messages.length >= 2, 45_000, 200);

    const byReason = new Map(dlq.messages.map((m) => [header(m.headers, 'reason'), m]));
    expect(new Map([...byReason].map(([r, m]) => [r, header(m.headers, 'stage')]))).toEqual(
      new Map([
        ['bad_json', 'decode'],
        ['too_large', 'decode'],
        ['schema_version', 'validate'],
        ['RAGWATCH_JUDGE_MALFORMED', 'judge'],
      ]),
    );
    for (const m of dlq.messages) expect(header(m.headers, 'error')?.length).toBeGreaterThan(0);
    const judged = byReason.get('RAGWATCH_JUDGE_MALFORMED')!;
    expect(JSON.parse(String(judged.value)).id).toBe(unscorable.id);
    expect(header(judged.headers, 'original-topic')).toBe(topics.triplets);

    const scored = scores.messages.map((m) => (JSON.parse(String(m.value)) as ScoreRecord).tripletId);
    expect(scored.sort()).toEqual([first.id, last.id].sort());

    // The failed evaluation on the trace: error.type per metric the LLM judge scores, no score.
    const expected = [...judgedMetrics(BUILTIN_REGISTRY)('llm')].sort();
    const failedRecords = () => receiver.records.filter((r) => r.traceId === unscorable.traceId);
    await waitFor(() => failedRecords().length >= expected.length && receiver.records.some((r) => r.traceId === last.traceId), 20_000, 100);
    expect(failedRecords().map((r) => String(r.attributes['gen_ai.evaluation.name']?.value)).sort()).toEqual(expected);
    for (const r of failedRecords()) {
      expect(r.spanId).toBe(unscorable.spanId);
      expect(r.attributes['error.type']?.value).toBe('RAGWATCH_JUDGE_MALFORMED');
      expect(r.attributes['gen_ai.evaluation.score.value']).toBeUndefined();
      expect(r.attributes['ragwatch.triplet.id']?.value).toBe(unscorable.id);
    }
    const exportedTraces = new Set(receiver.records.map((r) => r.traceId));
    expect([...exportedTraces].sort()).toEqual([first.traceId, unscorable.traceId, last.traceId].sort());
    expect(scorer.child.exitCode).toBeNull();
    expect(await scrape(scorer.apiUrl, 'ragwatch_dlq_messages_total')).toBe(4);
    expect(await scrape(scorer.apiUrl, 'ragwatch_kafka_consumer_lag_messages')).toBe(0);
    expect((await fetch(`${scorer.apiUrl}/readyz`)).status).toBe(200);

    // SIGTERM: finish and commit the current batch, leave the group, exit 0 within the grace period.
    const stopping = performance.now();
    scorer.child.kill('SIGTERM');
    expect(await scorer.exited).toBe(0);
    expect(performance.now() - stopping).toBeLessThan(4_000);
  }, 90_000);
});
