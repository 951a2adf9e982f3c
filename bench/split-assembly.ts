/**
 * Split assembly throughput (issue 18): spans/s through collector → spans topic → assembler →
 * triplets topic, vs the local path (collector assembling itself → triplets topic), on the
 * librdkafka mock cluster. The collector runs in this process in both paths; the assembler runs as
 * its own `ragwatch assembler` process, as deployed. Rounds alternate; medians are compared. Needs `kcat`.
 *
 * Input: OTLP/protobuf export bodies of real SDK spans (20 three-span traces each, bench/otlp-bodies.ts),
 * each decoded by the collector's own decoder and ingested, as its HTTP handler does — the collector's
 * work starts at the export body in both paths.
 *
 * - split_assembly_ratio_vs_local (target ≥ 0.5): the split path's spans/s over the local path's.
 * - split_assembly_ratio_vs_local_predecoded (no target): the same traces decoded before the clock —
 *   capture and transport only, the stage both paths share left out (what the split path adds, undiluted).
 * One assembler serves every split round, as a deployed one runs for days (a fresh process per round
 * timed V8's cold JIT: 141 µs of CPU per span against 68 for the whole local path); each round starts
 * a fresh collector, and the clock stops when the assembler's triplets of the round are acknowledged
 * (the triplets topic's high watermarks, polled every 20 ms). The local round stops when the collector's triplets are
 * acknowledged. CPU per span of each process (all threads, /proc) says what dominates.
 */
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import type { CapturedSpan } from '../src/capture/types.ts';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/load.ts';
import { Pipeline } from '../src/pipeline.ts';
import { startKafkaMock } from '../tests/helpers/kafka-mock.ts';
import { BIN, metricValue } from '../tests/helpers/process.ts';
import { which } from '../tests/helpers/prometheus.ts';
import { decodeTraces } from '../src/capture/otlp/decode.ts';
import { emit, median, QUICK } from './lib.ts';
import { otlpBodyMaker, SPANS_PER_TRACE, TRACES_PER_BODY } from './otlp-bodies.ts';

const BODIES = QUICK ? 100 : 500;
/** Traces per round. */
const N = BODIES * TRACES_PER_BODY;
const SPANS = N * SPANS_PER_TRACE;
const ROUNDS = QUICK ? 1 : 5;

/** A round's input: export bodies (decoded inside the clock) or their spans decoded beforehand. */
type Input = { kind: 'otlp'; bodies: Buffer[] } | { kind: 'predecoded'; requests: CapturedSpan[][] };

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

/** CPU ms spent by each process between two readings (undefined when a reading is missing). */
function cpuSince(pids: readonly number[], before: ReadonlyArray<number | undefined>): Array<number | undefined> {
  return pids.map((pid, i) => {
    const now = cpuMs(pid);
    return now === undefined || before[i] === undefined ? undefined : now - before[i]!;
  });
}

interface Round {
  spansPerS: number;
  /** CPU ms of the collector (this process) and, in split rounds, of the assembler process. */
  collectorCpuMs: number | undefined;
  /** CPU ms of the mock broker (kcat): it shares the bench's two cores, a deployed cluster has its own machines. */
  brokerCpuMs: number | undefined;
  assemblerCpuMs?: number | undefined;
}

const counter = async (c: { get(): Promise<{ values: Array<{ value: number }> }> }) => (await c.get()).values.reduce((s, v) => s + v.value, 0);

function config(brokers: string[], round: string, overrides: Record<string, unknown> = {}) {
  return loadConfig({ env: {}, overrides: { ...configOverrides(brokers, round), ...overrides } });
}

function configOverrides(brokers: string[], round: string): Record<string, unknown> {
  return {
      server: { host: '127.0.0.1', httpPort: 0, otlpPort: 0 },
      // A local round ingests its traces within ~0.3 s, faster than they close: buffers sized so that
      // nothing is dropped (with the default 5,000 traces the local collector drops).
      capture: { traceIdleMs: 50, maxTraces: 2 * N, maxBufferedSpans: 8 * N },
      transport: {
        kind: 'kafka',
        kafka: {
          brokers,
          assemblerGroupId: `bench-asm-${round}`,
          assemblerCommitIntervalMs: 500,
          topics: { spans: `bench.spans.${round}`, triplets: `bench.split.triplets.${round}` },
          producer: { batchMaxMessages: 500, maxBufferMessages: N * 4 },
          // librdkafka's mock cluster holds a fetch for its full wait even when data is there (a real
          // broker answers at fetch.min.bytes): at the default 1 s the bench would time the mock's wait.
          consumer: { fetchMaxWaitMs: 100 },
        },
      },
      metrics: { processMetrics: false },
  };
}

/** Fresh traces (new ids every round: re-sent spans are duplicates) as export bodies or decoded requests. */
function makeInput(kind: Input['kind']): Input {
  const body = otlpBodyMaker();
  const bodies = Array.from({ length: BODIES }, () => body().protobuf);
  return kind === 'otlp' ? { kind, bodies } : { kind, requests: bodies.map((b) => decodeTraces(b, 'application/x-protobuf').spans) };
}

/** Ingests the input as a collector's OTLP handler does: one export request per event-loop turn. */
async function ingest(pipeline: Pipeline, input: Input): Promise<void> {
  const requests = input.kind === 'otlp' ? input.bodies : input.requests;
  for (const request of requests) {
    pipeline.ingestSpans(Buffer.isBuffer(request) ? decodeTraces(request, 'application/x-protobuf').spans : request, 'otlp');
    await new Promise((r) => setImmediate(r));
  }
}

async function until(what: string, done: () => Promise<boolean>, timeoutMs = 120_000, everyMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`bench split-assembly: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

async function localRound(brokers: string[], input: Input): Promise<Round> {
  const collector = new Pipeline({ config: config(brokers, `local-${randomUUID().slice(0, 6)}`, { transport: { kind: 'kafka', kafka: { brokers, assembly: 'local', producer: { batchMaxMessages: 500, maxBufferMessages: N * 4 } } } }), role: 'collector' });
  await collector.start();
  const cpu = [cpuMs(process.pid), cpuMs(BROKER_PID)];
  const started = performance.now();
  await ingest(collector, input);
  await until('local triplets', async () => (await counter(collector.instruments.produced)) >= N || (await counter(collector.instruments.dropped)) > 0);
  if ((await counter(collector.instruments.dropped)) > 0) throw new Error('bench split-assembly: the local collector dropped items');
  const elapsed = performance.now() - started;
  const [collectorCpuMs, brokerCpuMs] = cpuSince([process.pid, BROKER_PID], cpu);
  await collector.shutdown(2_000);
  return { spansPerS: (SPANS / elapsed) * 1000, collectorCpuMs, brokerCpuMs };
}

/** A running `ragwatch assembler` (one for all split rounds, warm like a deployed one) and its topics. */
interface Assembler {
  round: string;
  apiUrl: string;
  pid: number;
  /** Triplets acknowledged on the round's triplets topic so far (sum of the partitions' high watermarks). */
  acked(): Promise<number>;
  stop(): Promise<void>;
}

async function startAssembler(brokers: string[]): Promise<Assembler> {
  const round = randomUUID().slice(0, 8);
  const proc = await startAssemblerProcess(configOverrides(brokers, round));
  const metric = async (name: string) => metricValue(await (await fetch(`${proc.apiUrl}/metrics`)).text(), name) ?? 0;
  await until('assembler partitions', async () => (await fetch(`${proc.apiUrl}/readyz`)).ok && (await metric('ragwatch_kafka_partitions_assigned')) > 0);
  // Completion is read from the broker, not the assembler's /metrics: rendering its registry 50 times a
  // second cost the measured process ~5 % of its CPU (profile), a cost the local round never paid.
  const admin = new Kafka({ clientId: 'bench-split-watch', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const topic = `bench.split.triplets.${round}`;
  const acked = async () => ((await admin.fetchTopicOffsets(topic).catch(() => [])) as Array<{ high: string }>).reduce((sum, p) => sum + Number(p.high), 0);
  return {
    round,
    ...proc,
    acked,
    stop: async () => {
      await admin.disconnect();
      await proc.stop();
    },
  };
}

async function splitRound(brokers: string[], assembler: Assembler, input: Input): Promise<Round> {
  const metric = async (name: string) => metricValue(await (await fetch(`${assembler.apiUrl}/metrics`)).text(), name) ?? 0;
  const lostInAssembler = async () => (await metric('ragwatch_dropped_total')) + (await metric('ragwatch_triplets_incomplete_total'));
  const [acked0, lost0] = [await assembler.acked(), await lostInAssembler()];
  const collector = new Pipeline({ config: config(brokers, assembler.round), role: 'collector', forwardSpans: true });
  await collector.start();
  const cpu = [cpuMs(process.pid), cpuMs(assembler.pid), cpuMs(BROKER_PID)];
  const started = performance.now();
  await ingest(collector, input);
  const lost = async () => (await lostInAssembler()) - lost0 + (await counter(collector.instruments.dropped));
  let polls = 0;
  // Losses are checked every 25th poll (~0.5 s): enough to stop a broken round early.
  await until('assembled triplets', async () => (await assembler.acked()) - acked0 >= N || (++polls % 25 === 0 && (await lost()) > 0), 120_000, 20);
  const elapsed = performance.now() - started;
  const [collectorCpuMs, assemblerCpuMs, brokerCpuMs] = cpuSince([process.pid, assembler.pid, BROKER_PID], cpu);
  if ((await lost()) > 0) throw new Error(`bench split-assembly: ${await lost()} spans or triplets dropped or incomplete`);
  await collector.shutdown(2_000);
  return { spansPerS: (SPANS / elapsed) * 1000, collectorCpuMs, assemblerCpuMs, brokerCpuMs };
}

/** `ragwatch assembler` as a child process on the round's config; resolves once it logs its metrics URL. */
async function startAssemblerProcess(overrides: Record<string, unknown>): Promise<{ apiUrl: string; pid: number; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'ragwatch-bench-asm-'));
  const file = join(dir, 'ragwatch.yaml');
  writeFileSync(file, JSON.stringify({ ...overrides, log: { level: 'info', format: 'json' } }));
  const child = spawn(process.execPath, ['--max-semi-space-size=4', BIN, 'assembler', '-c', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until('assembler start', async () => err.includes('"msg":"ragwatch assembler started"'), 30_000);
  } catch (e) {
    await stop();
    throw new Error(`${String(e)}\n${err.slice(-2000)}`, { cause: e });
  }
  const apiUrl = /"metrics":"(http:\/\/[^"]+)\/metrics"/.exec(err)![1]!;
  return { apiUrl, pid: child.pid!, stop };
}

if (!which('kcat')) {
  process.stderr.write('bench split-assembly: kcat is not installed (apt-get install -y kcat); skipped\n');
  process.exit(process.env.CI === 'true' ? 1 : 0);
}
const mock = await startKafkaMock();
const BROKER_PID = mock.pid;
try {
  const assembler = await startAssembler(mock.brokers);
  const kinds = ['otlp', 'predecoded'] as const;
  const rounds = { otlp: { local: [] as Round[], split: [] as Round[] }, predecoded: { local: [] as Round[], split: [] as Round[] } };
  try {
    // Warm-up: JIT of both paths (this process and the assembler's), topic creation on the mock.
    await localRound(mock.brokers, makeInput('otlp'));
    await splitRound(mock.brokers, assembler, makeInput('otlp'));
    for (let r = 0; r < ROUNDS; r++) {
      for (const kind of kinds) {
        rounds[kind].local.push(await localRound(mock.brokers, makeInput(kind)));
        rounds[kind].split.push(await splitRound(mock.brokers, assembler, makeInput(kind)));
      }
    }
  } finally {
    await assembler.stop();
  }
  const rate = (xs: Round[]) => median(xs.map((x) => x.spansPerS));
  for (const kind of kinds) {
    const { local, split } = rounds[kind];
    const suffix = kind === 'otlp' ? '' : '_predecoded';
    const ratio = rate(split) / rate(local);
    process.stderr.write(`split-assembly (${kind}): local ${rate(local).toFixed(0)} spans/s, split ${rate(split).toFixed(0)} spans/s (${N} three-span traces, ${ROUNDS} rounds)\n`);
    emit({ bench: 'split-assembly', figure: `split_assembly_ratio_vs_local${suffix}`, value: ratio, unit: 'ratio', baseline: 1, ratio });
    emit({ bench: 'split-assembly', figure: `split_assembly_spans_per_s${suffix}`, value: rate(split), unit: 'spans/s', baseline: rate(local), ratio });
    // What dominates: CPU per span of each process (µs), all threads, in the same rounds.
    const perSpan = (xs: Array<number | undefined>) => (xs.every((x) => x !== undefined) ? (median(xs as number[]) * 1000) / SPANS : undefined);
    const localCpu = perSpan(local.map((x) => x.collectorCpuMs));
    const collectorCpu = perSpan(split.map((x) => x.collectorCpuMs));
    const assemblerCpu = perSpan(split.map((x) => x.assemblerCpuMs));
    if (localCpu !== undefined && collectorCpu !== undefined && assemblerCpu !== undefined) {
      emit({ bench: 'split-assembly', figure: `split_assembly_cpu_us_per_span${suffix}`, value: collectorCpu + assemblerCpu, unit: 'µs', baseline: localCpu, ratio: (collectorCpu + assemblerCpu) / localCpu });
      emit({ bench: 'split-assembly', figure: `split_assembly_collector_cpu_us_per_span${suffix}`, value: collectorCpu, unit: 'µs', baseline: localCpu, ratio: collectorCpu / localCpu });
      emit({ bench: 'split-assembly', figure: `split_assembly_assembler_cpu_us_per_span${suffix}`, value: assemblerCpu, unit: 'µs', baseline: localCpu, ratio: assemblerCpu / localCpu });
    }
    const brokerLocal = perSpan(local.map((x) => x.brokerCpuMs));
    const brokerSplit = perSpan(split.map((x) => x.brokerCpuMs));
    if (brokerLocal !== undefined && brokerSplit !== undefined) emit({ bench: 'split-assembly', figure: `split_assembly_broker_cpu_us_per_span${suffix}`, value: brokerSplit, unit: 'µs', baseline: brokerLocal, ratio: brokerSplit / brokerLocal });
  }
} finally {
  await mock.stop();
}
process.exit(0);
