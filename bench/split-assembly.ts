/**
 * Split assembly throughput (issue 18): spans/s through collector → spans topic → assembler →
 * triplets topic, vs the local path (collector assembling itself → triplets topic), on a local
 * Apache Kafka broker (one KRaft node, tests/helpers/kafka-broker.ts). Needs Java 17+ and the
 * broker jars (scripts/kafka/jars.sh).
 *
 * Both paths run as deployed: `ragwatch collector` processes (one assembling locally, one forwarding
 * span records) and a `ragwatch assembler` process, each started once with the image's V8 flags and
 * kept for every round (a deployed process runs for days: warm JIT, trace context for late spans at
 * steady state). This process is the applications: it posts OTLP/protobuf export bodies of real SDK
 * spans (20 three-span OpenInference traces each, bench/otlp-bodies.ts) to the collector's OTLP/HTTP
 * port, four requests in flight, the same bodies' shape for both paths. A round's clock stops when
 * its triplets are acknowledged on its triplets topic (the topic's high watermarks, read from the
 * broker, the same way for both paths). Rounds alternate; medians are compared.
 *
 * - split_assembly_ratio_vs_local (target ≥ 0.5): the split path's spans/s over the local path's.
 * - CPU per span of every process (all threads, /proc) in the same rounds: what dominates.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { haveKafka, startKafkaCluster } from '../tests/helpers/kafka-broker.ts';
import { scrape, startRole, type RoleProcess } from '../tests/integration/kafka-process.ts';
import { emit, median, QUICK } from './lib.ts';
import { otlpBodyMaker, SPANS_PER_TRACE, TRACES_PER_BODY } from './otlp-bodies.ts';

const BODIES = QUICK ? 100 : 500;
/** Traces per round. */
const N = BODIES * TRACES_PER_BODY;
const SPANS = N * SPANS_PER_TRACE;
const ROUNDS = QUICK ? 1 : 5;
/** Export requests in flight at once (several SDKs exporting). */
const CONCURRENCY = 4;

/** CPU time (user + system, all threads) of a process so far, ms; undefined off Linux. */
function cpuMs(pid: number): number | undefined {
  try {
    // Fields 14 and 15 of /proc/PID/stat (utime, stime) in clock ticks; the name field may hold spaces.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1000 / 100);
  } catch {
    return undefined;
  }
}

async function until(what: string, done: () => Promise<boolean>, timeoutMs = 120_000, everyMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`bench split-assembly: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Items a role process dropped or traces it left incomplete so far (must not grow). */
async function lost(p: RoleProcess): Promise<number> {
  return (await scrape(p.apiUrl, 'ragwatch_dropped_total')) + (await scrape(p.apiUrl, 'ragwatch_triplets_incomplete_total'));
}

function configOverrides(brokers: string[], topics: { spans?: string; triplets: string }, assembly: 'local' | 'spans_topic', group: string): Record<string, unknown> {
  return {
    server: { host: '127.0.0.1', httpPort: 0, otlpPort: 0, otlpGrpcPort: 0 },
    // Split mode: one pseudonym key for every collector (as the chart's Secret).
    redaction: { hmacKey: 'bench-split-assembly-hmac-key-0123456789' },
    // A round's traces arrive within ~1 s, faster than they close: buffers sized so that nothing is
    // dropped (with the default 5,000 traces the local collector drops).
    capture: { traceIdleMs: 50, maxTraces: 2 * N, maxBufferedSpans: 8 * N },
    transport: {
      kind: 'kafka',
      kafka: {
        brokers,
        assembly,
        assemblerGroupId: group,
        assemblerCommitIntervalMs: 500,
        topics: { ...(topics.spans ? { spans: topics.spans } : {}), triplets: topics.triplets },
        producer: { batchMaxMessages: 500, maxBufferMessages: N * 4 },
        // Four partitions for the spans and triplets topics (the roles create them).
        createTopics: { partitions: 4 },
      },
    },
    metrics: { processMetrics: false },
  };
}

/** One path: its processes (the first receives OTLP) and its triplets topic. */
interface Path {
  name: 'local' | 'split';
  processes: RoleProcess[];
  triplets: string;
}

interface Round {
  spansPerS: number;
  /** CPU ms per process of the path, in order, then the broker JVM's (undefined off Linux). */
  cpuMs: Array<number | undefined>;
}

/** Triplets acknowledged on a topic so far (sum of its partitions' high watermarks). */
async function acked(admin: Admin, topic: string): Promise<number> {
  return ((await admin.fetchTopicOffsets(topic).catch(() => [])) as Array<{ high: string }>).reduce((sum, p) => sum + Number(p.high), 0);
}

/** Posts the bodies to the collector, {@link CONCURRENCY} at a time. */
async function post(otlpUrl: string, bodies: Buffer[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const res = await fetch(otlpUrl, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`bench split-assembly: the collector answered ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

async function round(path: Path, admin: Admin, brokerPid: number): Promise<Round> {
  const make = otlpBodyMaker();
  // Fresh trace ids every round: re-sent spans are (correctly) duplicates.
  const bodies = Array.from({ length: BODIES }, () => make().protobuf);
  const pids = [...path.processes.map((p) => p.pid), brokerPid];
  const acked0 = await acked(admin, path.triplets);
  const lostNow = async () => (await Promise.all(path.processes.map(lost))).reduce((a, b) => a + b, 0);
  const lost0 = await lostNow();
  const cpu0 = pids.map(cpuMs);
  const started = performance.now();
  await post(path.processes[0]!.otlpUrl!, bodies);
  let polls = 0;
  // Losses are checked every 25th poll (~0.5 s): enough to stop a broken round early.
  await until(`${path.name} triplets`, async () => (await acked(admin, path.triplets)) - acked0 >= N || (++polls % 25 === 0 && (await lostNow()) > lost0));
  const elapsed = performance.now() - started;
  const cpu = pids.map((pid, i) => {
    const now = cpuMs(pid);
    return now === undefined || cpu0[i] === undefined ? undefined : now - cpu0[i]!;
  });
  if ((await lostNow()) > lost0) throw new Error(`bench split-assembly (${path.name}): ${(await lostNow()) - lost0} spans or triplets dropped or incomplete`);
  return { spansPerS: (SPANS / elapsed) * 1000, cpuMs: cpu };
}

// Missing Java or jars: skipped loudly here, an error under CI=true (haveKafka throws).
if (!haveKafka('bench split-assembly')) process.exit(0);
const kafka = await startKafkaCluster();
const brokerPid = kafka.pid(0)!;
const admin = new Kafka({ clientId: 'bench-split-watch', brokers: kafka.brokers, logLevel: logLevel.NOTHING }).admin();
const id = randomUUID().slice(0, 8);
const started: RoleProcess[] = [];
const start = async (role: 'collector' | 'assembler', overrides: Record<string, unknown>) => {
  // The image's V8 flag, as deployed.
  const p = await startRole(role, { ...overrides, log: { level: 'info', format: 'json' } }, 30_000, ['--max-semi-space-size=4']);
  started.push(p);
  return p;
};
try {
  await admin.connect();
  const localTopics = { triplets: `bench.local.triplets.${id}` };
  const splitTopics = { spans: `bench.spans.${id}`, triplets: `bench.split.triplets.${id}` };
  const local: Path = { name: 'local', triplets: localTopics.triplets, processes: [await start('collector', configOverrides(kafka.brokers, localTopics, 'local', `bench-asm-local-${id}`))] };
  const assembler = await start('assembler', configOverrides(kafka.brokers, splitTopics, 'spans_topic', `bench-asm-${id}`));
  const split: Path = { name: 'split', triplets: splitTopics.triplets, processes: [await start('collector', configOverrides(kafka.brokers, splitTopics, 'spans_topic', `bench-asm-${id}`)), assembler] };
  await until('assembler partitions', async () => (await fetch(`${assembler.apiUrl}/readyz`)).ok && (await scrape(assembler.apiUrl, 'ragwatch_kafka_partitions_assigned')) > 0);
  const rounds = { local: [] as Round[], split: [] as Round[] };
  // Warm-up: JIT of every process.
  await round(local, admin, brokerPid);
  await round(split, admin, brokerPid);
  for (let r = 0; r < ROUNDS; r++) {
    rounds.local.push(await round(local, admin, brokerPid));
    rounds.split.push(await round(split, admin, brokerPid));
  }
  const rate = (xs: Round[]) => median(xs.map((x) => x.spansPerS));
  const ratio = rate(rounds.split) / rate(rounds.local);
  process.stderr.write(`split-assembly: local ${rate(rounds.local).toFixed(0)} spans/s, split ${rate(rounds.split).toFixed(0)} spans/s (${N} three-span traces per round, ${ROUNDS} rounds)\n`);
  emit({ bench: 'split-assembly', figure: 'split_assembly_ratio_vs_local', value: ratio, unit: 'ratio', baseline: 1, ratio });
  emit({ bench: 'split-assembly', figure: 'split_assembly_spans_per_s', value: rate(rounds.split), unit: 'spans/s', baseline: rate(rounds.local), ratio });
  // What dominates: CPU per span of each process (µs), all threads, medians over the same rounds.
  const perSpan = (xs: Round[], i: number) => (xs.every((x) => x.cpuMs[i] !== undefined) ? (median(xs.map((x) => x.cpuMs[i]!)) * 1000) / SPANS : undefined);
  const [localCpu, localBroker] = [perSpan(rounds.local, 0), perSpan(rounds.local, 1)];
  const [collectorCpu, assemblerCpu, splitBroker] = [perSpan(rounds.split, 0), perSpan(rounds.split, 1), perSpan(rounds.split, 2)];
  if (localCpu !== undefined && collectorCpu !== undefined && assemblerCpu !== undefined) {
    emit({ bench: 'split-assembly', figure: 'split_assembly_cpu_us_per_span', value: collectorCpu + assemblerCpu, unit: 'µs', baseline: localCpu, ratio: (collectorCpu + assemblerCpu) / localCpu });
    emit({ bench: 'split-assembly', figure: 'split_assembly_collector_cpu_us_per_span', value: collectorCpu, unit: 'µs', baseline: localCpu, ratio: collectorCpu / localCpu });
    emit({ bench: 'split-assembly', figure: 'split_assembly_assembler_cpu_us_per_span', value: assemblerCpu, unit: 'µs', baseline: localCpu, ratio: assemblerCpu / localCpu });
  }
  if (localBroker !== undefined && splitBroker !== undefined) emit({ bench: 'split-assembly', figure: 'split_assembly_broker_cpu_us_per_span', value: splitBroker, unit: 'µs', baseline: localBroker, ratio: localBroker > 0 ? splitBroker / localBroker : null });
} finally {
  for (const p of started.reverse()) await p.cleanup();
  await admin.disconnect().catch(() => undefined);
  await kafka.stop();
}
process.exit(0);
