/**
 * Fault case 7 (DESIGN §11 promise 8): a canary PII corpus sent through the whole pipeline of a
 * `ragwatch start` child process (OTLP ingest → capture → Kafka triplets topic → scorer → LLM judge
 * on the scripted server → scores topic / DLQ → /api/examples, /examples, /metrics, logs).
 * No raw canary (nor its digits-only / compact form) may appear in any of those sinks.
 */
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI, type FakeRequest } from '../fakes/openai-server.ts';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { oracleResponder, parsePrompt } from '../judges/helpers/oracle.ts';
import { reportFigure } from './figures.ts';
import { parseMetrics, startRagwatch, sumMetric, waitFor200, type RagwatchProcess } from './ragwatch-process.ts';
import { post, type SendStats } from './traffic.ts';
import { openInferenceTrace } from '../helpers/otlp.ts';

/** Canary PII: each must never leave the process raw. */
const CANARIES = {
  email: ['maria.lopez@example.com', 'J.Smith+bank@mail.example.co.uk'],
  phone: ['+44 20 7946 0958', '(415) 555-2671'],
  payment_card: ['4111 1111 1111 1111', '5555-5555-5555-4444', '378282246310005'],
  iban: ['GB82 WEST 1234 5698 7654 32', 'DE89370400440532013000'],
  us_ssn: ['123-45-6789'],
  ip_address: ['198.51.100.23', '2001:db8::8a2e:370:7334'],
  secret: ['sk-proj-Canary0123456789abcdefghijklmn', 'AKIAIOSFODNN7CANARY1'],
};
const ALL = Object.values(CANARIES).flat();
/** Forms to search for: the raw value and, for numbers, its separator-free form. */
const NEEDLES = [...new Set(ALL.flatMap((c) => [c, /^[\d\s()+-]+$/.test(c) ? c.replace(/\D/g, '') : c.replace(/ /g, '')]))];

const TRIPLETS = [
  {
    query: `I am ${CANARIES.email[0]}, SSN ${CANARIES.us_ssn[0]}. When was the Chimnabai Clock Tower completed?`,
    sources: [`The Chimnabai Clock Tower was completed in 1896. Ticket desk: ${CANARIES.phone[0]}, ${CANARIES.email[1]}.`, `Audit log: request from ${CANARIES.ip_address[0]} and ${CANARIES.ip_address[1]}.`],
    response: `The tower was completed in 1925, ${CANARIES.email[0]}. Call ${CANARIES.phone[1]} for tickets.`,
  },
  {
    query: `Why was card ${CANARIES.payment_card[0]} declined? Refund to ${CANARIES.iban[0]} please.`,
    sources: [`Card ${CANARIES.payment_card[1]} and ${CANARIES.payment_card[2]} are on file. Refunds go to IBAN ${CANARIES.iban[1]} within 14 days.`],
    response: `Card ${CANARIES.payment_card[0]} was declined for fraud; the refund of 40 EUR goes to ${CANARIES.iban[0]} tomorrow.`,
  },
  {
    query: `My key ${CANARIES.secret[0]} stopped working; AWS key ${CANARIES.secret[1]} too. [garbage]`,
    sources: ['API keys expire after 90 days and can be rotated in the console.'],
    response: `Key ${CANARIES.secret[0]} expired after 30 days.`,
  },
];

let fake: FakeOpenAI;
let kafka: KafkaTestCluster | undefined;
let rw: RagwatchProcess | undefined;
const useKafka = haveKafka('fault 7 (canary PII through Kafka)');

beforeAll(async () => {
  // The third triplet's judge answers are garbage, so it ends in the DLQ (whose payload must be redacted too).
  const oracle = oracleResponder();
  fake = await startFakeOpenAI((req: FakeRequest) => (parsePrompt(req).blocks.some((b) => b.text.includes('[garbage]')) ? { content: 'not json at all' } : oracle(req)));
  if (useKafka) kafka = await startKafkaCluster();
});
afterAll(async () => {
  await rw?.cleanup();
  await kafka?.stop();
  await fake?.close();
});

async function readTopic(brokers: string[], topic: string, want: number, timeoutMs: number): Promise<string[]> {
  const client = new Kafka({ clientId: 'canary-reader', brokers, logLevel: logLevel.NOTHING });
  const consumer = client.consumer({ groupId: `canary-${topic}-${Date.now()}` });
  const out: string[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const headers = Object.entries(message.headers ?? {}).map(([k, v]) => `${k}=${String(v)}`).join(',');
      out.push(`${message.key?.toString() ?? ''} ${headers} ${message.value?.toString() ?? ''}`);
    },
  });
  const until = Date.now() + timeoutMs;
  while (out.length < want && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
  await consumer.disconnect();
  return out;
}

function found(haystack: string): string[] {
  return NEEDLES.filter((n) => haystack.includes(n));
}

describe('fault 7: canary PII through the whole pipeline', () => {
  it('no raw PII in judge requests, logs, Kafka topics, /api/examples, /examples or /metrics', { timeout: 180_000 }, async () => {
    rw = await startRagwatch({
      server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0 },
      capture: { traceIdleMs: 200 },
      transport: useKafka ? { kind: 'kafka', kafka: { brokers: kafka!.brokers, consumer: { maxAttempts: 1 } } } : { kind: 'memory' },
      judge: { kind: 'llm', baseUrl: fake.baseURL, apiKey: 'sk-test-not-a-canary', model: 'judge-model', llm: { resultCacheSize: 0, factCacheSize: 0, retryBaseMs: 20, maxRetries: 1 } },
      log: { level: 'trace' },
    });
    await waitFor200(`${rw.apiUrl}/readyz`, 60_000);
    const stats: SendStats = { sent: 0, byStatus: {}, acceptedTraces: 0 };
    for (const t of TRIPLETS) {
      const { body } = openInferenceTrace({ query: t.query, documents: t.sources.map((content, i) => ({ id: `kb-${i}`, content })), response: t.response });
      await post(rw.otlpUrl, JSON.stringify(body), 1, stats);
    }
    // Wait until every sampled triplet is scored or failed.
    let metrics: Map<string, number>;
    const until = Date.now() + 90_000;
    for (;;) {
      metrics = parseMetrics(await (await fetch(`${rw.apiUrl}/metrics`)).text());
      const done = sumMetric(metrics, 'ragwatch_triplets_scored_total') + sumMetric(metrics, 'ragwatch_triplets_failed_total');
      if (done >= TRIPLETS.length || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    const scored = sumMetric(metrics, 'ragwatch_triplets_scored_total');
    const failed = sumMetric(metrics, 'ragwatch_triplets_failed_total');
    const metricsText = await (await fetch(`${rw.apiUrl}/metrics`)).text();
    const examplesJson = await (await fetch(`${rw.apiUrl}/api/examples?limit=200`)).text();
    const examplesHtml = await (await fetch(`${rw.apiUrl}/examples`)).text();
    const judgeBodies = fake.requests.map((r) => JSON.stringify(r.body ?? {})).join('\n');
    const topics: Record<string, string[]> = {};
    if (useKafka) {
      topics.triplets = await readTopic(kafka!.brokers, 'ragwatch.triplets.v1', TRIPLETS.length, 15_000);
      topics.scores = await readTopic(kafka!.brokers, 'ragwatch.scores.v1', scored, 15_000);
      topics.dlq = await readTopic(kafka!.brokers, 'ragwatch.triplets.dlq', failed, 15_000);
    }
    rw.child.kill('SIGTERM');
    await rw.exited;
    const logs = rw.output();

    const sinks: Record<string, string> = { judge_requests: judgeBodies, logs, metrics: metricsText, api_examples: examplesJson, examples_page: examplesHtml };
    for (const [name, msgs] of Object.entries(topics)) sinks[`kafka_${name}`] = msgs.join('\n');
    const leaks = Object.fromEntries(Object.entries(sinks).map(([name, text]) => [name, found(text)]));
    const total = Object.values(leaks).reduce((a, l) => a + l.length, 0);
    const examples = (JSON.parse(examplesJson) as { count: number }).count;
    reportFigure({
      fault: 'canary_pii', figure: 'raw_pii_found', value: total, canaries: ALL.length, kafka: useKafka,
      leaks: Object.fromEntries(Object.entries(leaks).filter(([, l]) => l.length > 0)),
      sinkSizes: { judgeRequests: fake.requests.length, logLines: logs.split('\n').length, examples, ...Object.fromEntries(Object.entries(topics).map(([k, v]) => [`kafka_${k}`, v.length])) },
    });

    // Non-vacuous: every sink really carried the (redacted) data.
    expect(stats.acceptedTraces).toBe(TRIPLETS.length);
    expect(scored).toBe(TRIPLETS.length - 1);
    expect(failed).toBe(1);
    expect(judgeBodies).toContain('<EMAIL_1>');
    expect(judgeBodies).toContain('<PAYMENT_CARD_1>');
    expect(examples).toBeGreaterThan(0);
    if (useKafka) {
      expect(topics.triplets!.length).toBe(TRIPLETS.length);
      expect(topics.triplets!.join('\n')).toContain('<IBAN_1>');
      expect(topics.scores!.length).toBe(scored);
      expect(topics.dlq!.length).toBe(1);
      expect(topics.dlq!.join('\n')).toContain('<SECRET_1>');
    }
    expect(leaks).toEqual(Object.fromEntries(Object.keys(sinks).map((k) => [k, []])));
  });
});
