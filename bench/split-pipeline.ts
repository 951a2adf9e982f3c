/**
 * The split pipeline end to end on a local Apache Kafka broker (one KRaft node,
 * tests/helpers/kafka-broker.ts): OTLP → `ragwatch collector` → spans topic → `ragwatch assembler` →
 * triplets topic (4 partitions) → two `ragwatch scorer` replicas → scores topic, every role its own
 * process with the image's V8 flag. The judge is the LLM judge against a local OpenAI-compatible
 * server answering at once (tests/fakes/openai-server.ts with the oracle responder): the judge's own
 * cost is excluded, what remains is ragwatch's — prompts, parsing, metrics, Kafka — plus one loopback
 * HTTP round trip per judge call. This process posts OTLP/protobuf export bodies (20 three-span
 * traces each, four requests in flight); a round's clock stops when its score records are on the
 * scores topic (the topic's high watermarks). While it runs, the scorers' consumer lag
 * (`ragwatch_kafka_consumer_lag_messages`, per partition) is scraped every 200 ms.
 *
 * - split_pipeline_triplets_per_s: scored triplets/s, collector to scores topic (median of the rounds).
 * - split_pipeline_peak_consumer_lag: the largest lag the scorers exported during the rounds.
 * - split_pipeline_consumer_lag_left: the lag they export once the last records are scored (must be 0).
 */
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { startFakeOpenAI } from '../tests/fakes/openai-server.ts';
import { haveKafka, startKafkaCluster } from '../tests/helpers/kafka-broker.ts';
import { roleConfig, scrape, startRole, type RoleProcess } from '../tests/integration/kafka-process.ts';
import { oracleResponder } from '../tests/judges/helpers/oracle.ts';
import { emit, median, QUICK } from './lib.ts';
import { otlpBodyMaker, TRACES_PER_BODY } from './otlp-bodies.ts';

const BODIES = QUICK ? 50 : 200;
/** Traces (and so triplets) per round. */
const N = BODIES * TRACES_PER_BODY;
const ROUNDS = QUICK ? 1 : 3;
const CONCURRENCY = 4;

async function until(what: string, done: () => Promise<boolean>, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`bench split-pipeline: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Records on a topic so far (sum of its partitions' high watermarks). */
async function onTopic(admin: Admin, topic: string): Promise<number> {
  return ((await admin.fetchTopicOffsets(topic).catch(() => [])) as Array<{ high: string }>).reduce((sum, p) => sum + Number(p.high), 0);
}

async function post(otlpUrl: string, bodies: Buffer[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const res = await fetch(otlpUrl, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`bench split-pipeline: the collector answered ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

// Missing Java or jars: skipped loudly here, an error under CI=true (haveKafka throws).
if (!haveKafka('bench split-pipeline')) process.exit(0);
const [kafka, judge] = await Promise.all([startKafkaCluster(), startFakeOpenAI(oracleResponder())]);
const admin = new Kafka({ clientId: 'bench-split-pipeline', brokers: kafka.brokers, logLevel: logLevel.NOTHING }).admin();
const procs: RoleProcess[] = [];
try {
  await admin.connect();
  const prefix = `bench-pipe-${randomUUID().slice(0, 8)}`;
  const config = roleConfig(kafka.brokers, prefix, { assembly: 'spans_topic', producer: { batchMaxMessages: 500, maxBufferMessages: N * 4 }, consumer: { fetchMaxWaitMs: 100 } }, judge.baseURL);
  // A round's traces arrive within seconds, faster than they close: buffers sized so that nothing is dropped.
  config.capture = { traceIdleMs: 200, maxTraces: 2 * N, maxBufferedSpans: 8 * N };
  const start = (role: 'collector' | 'assembler' | 'scorer') => startRole(role, config, 60_000, ['--max-semi-space-size=4']).then((p) => (procs.push(p), p));
  const [collector, , scorerA, scorerB] = await Promise.all([start('collector'), start('assembler'), start('scorer'), start('scorer')]);
  const scorers = [scorerA, scorerB];
  await until('both scorers to share the 4 partitions', async () => (await Promise.all(procs.map(async (p) => (await fetch(`${p.apiUrl}/readyz`)).ok))).every(Boolean) && (await scrape(scorerA.apiUrl, 'ragwatch_kafka_partitions_assigned')) > 0 && (await scrape(scorerB.apiUrl, 'ragwatch_kafka_partitions_assigned')) > 0);
  const scoresTopic = `${prefix}.scores.v1`;
  let peakLag = 0;
  const lag = async () => (await Promise.all(scorers.map((s) => scrape(s.apiUrl, 'ragwatch_kafka_consumer_lag_messages')))).reduce((a, b) => a + b, 0);
  const watcher = setInterval(() => void lag().then((l) => (peakLag = Math.max(peakLag, l)), () => undefined), 200);
  const round = async (): Promise<number> => {
    const make = otlpBodyMaker();
    const bodies = Array.from({ length: BODIES }, () => make().protobuf);
    const before = await onTopic(admin, scoresTopic);
    const started = performance.now();
    await post(collector.otlpUrl!, bodies);
    await until(`${N} score records`, async () => (await onTopic(admin, scoresTopic)) - before >= N);
    return (N / (performance.now() - started)) * 1000;
  };
  await round(); // warm-up: JIT of every process, the groups settled
  peakLag = 0;
  const rates: number[] = [];
  for (let r = 0; r < ROUNDS; r++) rates.push(await round());
  clearInterval(watcher);
  await until('the scorers to commit their last offsets', async () => (await lag()) === 0, 30_000).catch(() => undefined);
  const lagLeft = await lag();
  const dropped = (await Promise.all(procs.map((p) => scrape(p.apiUrl, 'ragwatch_dropped_total')))).reduce((a, b) => a + b, 0);
  if (dropped > 0) throw new Error(`bench split-pipeline: ${dropped} items dropped`);
  process.stderr.write(`split-pipeline: ${median(rates).toFixed(0)} scored triplets/s collector → assembler → 2 scorers (${N} traces per round, ${ROUNDS} rounds; judge a local fake answering at once), peak consumer lag ${peakLag}, left ${lagLeft}\n`);
  emit({ bench: 'split-pipeline', figure: 'split_pipeline_triplets_per_s', value: median(rates), unit: 'triplets/s', baseline: null, ratio: null });
  emit({ bench: 'split-pipeline', figure: 'split_pipeline_peak_consumer_lag', value: peakLag, unit: 'messages', baseline: null, ratio: null });
  emit({ bench: 'split-pipeline', figure: 'split_pipeline_consumer_lag_left', value: lagLeft, unit: 'messages', baseline: null, ratio: null });
} finally {
  for (const p of procs.reverse()) await p.cleanup();
  await admin.disconnect().catch(() => undefined);
  await judge.close();
  await kafka.stop();
}
process.exit(0);
