/**
 * Helpers for the Kafka integration tests (real Apache Kafka, tests/helpers/kafka-broker.ts): runs
 * `ragwatch collector` / `ragwatch scorer` as real child processes (the CLI from the sources, on the test runner's Node) with a temporary config,
 * sends OTLP traffic, scrapes /metrics, and reads topics with a throwaway consumer group.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Kafka, logLevel, type Consumer, type KafkaMessage } from 'kafkajs';
import { openInferenceTrace, postOtlp } from '../helpers/otlp.ts';
import { metricValue } from '../helpers/process.ts';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

/** The pseudonym key of the split-mode test deployments. */
export const TEST_HMAC_KEY = 'kafka-test-shared-hmac-key-0123456789abcdef';

/** A running collector or scorer. */
export interface RoleProcess {
  child: ChildProcess;
  pid: number;
  /** Metrics/API base URL, e.g. `http://127.0.0.1:1234`. */
  apiUrl: string;
  /** OTLP traces URL (collector only). */
  otlpUrl: string | undefined;
  output(): string;
  exited: Promise<number | string>;
  /** SIGKILLs if running, removes the temp dir. Idempotent. */
  cleanup(): Promise<void>;
}

/** Starts `ragwatch <role> -c <tmp>` (Node flags `nodeArgs` first, e.g. the image's) and resolves once its HTTP server listens. */
export async function startRole(role: 'start' | 'collector' | 'scorer' | 'assembler' | 'prober' | 'slices', config: Record<string, unknown>, startTimeoutMs = 30_000, nodeArgs: readonly string[] = []): Promise<RoleProcess> {
  const dir = mkdtempSync(join(tmpdir(), `ragwatch-${role}-`));
  const file = join(dir, 'ragwatch.json.yaml');
  // Each process its own store unless the test names one (a restart that must find its state):
  // the default `./data` would be one SQLite file shared by every role of every test file.
  const store = (config.store ?? {}) as Record<string, unknown>;
  writeFileSync(file, JSON.stringify(store.dataDir === undefined ? { ...config, store: { ...store, dataDir: join(dir, 'data') } } : config));
  const env = { ...process.env };
  delete env.RAGWATCH_CONFIG;
  // A launcher file, not `node -e`: a child that forks Node (node-llama-cpp tests its binary in a
  // fork, which inherits execArgv) must not inherit an eval script.
  const launcher = join(dir, 'launch.mjs');
  writeFileSync(launcher, `const { main } = await import(${JSON.stringify(CLI)}); await main(process.argv.slice(2));\n`);
  const child = spawn(process.execPath, [...nodeArgs, launcher, role, '-c', file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let raw = '';
  let pending = '';
  let started: (v: { api: string; otlp?: string }) => void;
  const startedP = new Promise<{ api: string; otlp?: string }>((r) => (started = r));
  child.stdout!.on('data', (c: Buffer) => (raw += c.toString()));
  child.stderr!.on('data', (c: Buffer) => {
    const s = c.toString();
    raw = (raw + s).slice(-200_000);
    pending += s;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      try {
        const rec = JSON.parse(line) as Record<string, unknown>;
        const metrics = typeof rec.metrics === 'string' ? rec.metrics.replace(/\/metrics$/, '') : undefined;
        if (metrics && (rec.msg === 'ragwatch started' || rec.msg === 'ragwatch scorer started' || rec.msg === 'ragwatch assembler started' || rec.msg === 'ragwatch prober started' || rec.msg === 'ragwatch slices started')) {
          started({ api: metrics, ...(typeof rec.otlp === 'string' ? { otlp: rec.otlp } : {}) });
        }
      } catch {
        // not a JSON log line
      }
    }
  });
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  let cleaned: Promise<void> | undefined;
  const cleanup = () =>
    (cleaned ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    })());
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${role} did not start:\n${raw.slice(-2000)}`)), startTimeoutMs);
  });
  const early = exited.then((e) => Promise.reject(new Error(`${role} exited early (${e}):\n${raw.slice(-2000)}`)));
  try {
    const urls = await Promise.race([startedP, timeout, early]);
    return { child, pid: child.pid!, apiUrl: urls.api, otlpUrl: urls.otlp, output: () => raw, exited, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Config for a role process against `brokers`, with test-sized timeouts. With `judgeBaseUrl` the
 * scorers use the LLM judge against the fake OpenAI-compatible server (the only allowed fake),
 * else the embedded judge.
 */
export function roleConfig(brokers: string[], prefix: string, kafka: Record<string, unknown> = {}, judgeBaseUrl?: string): Record<string, unknown> {
  const { producer, consumer, ...rest } = kafka as { producer?: Record<string, unknown>; consumer?: Record<string, unknown> };
  return {
    server: { host: '127.0.0.1', otlpPort: 0, otlpGrpcPort: 0, httpPort: 0, shutdownGraceMs: 3_000 },
    // Split mode: one pseudonym key for every collector (the chart's Secret).
    redaction: { hmacKey: TEST_HMAC_KEY },
    capture: { traceIdleMs: 200 },
    transport: {
      kind: 'kafka',
      kafka: {
        brokers,
        groupId: `${prefix}-scorers`,
        assemblerGroupId: `${prefix}-assemblers`,
        // One collector per test here: local assembly unless a test asks for the spans topic.
        assembly: 'local',
        assemblerCommitIntervalMs: 500,
        connectionTimeoutMs: 500,
        // Four partitions, as the tests' scorer and assembler counts assume; one replica per broker (capped).
        createTopics: { partitions: 4 },
        topics: { spans: `${prefix}.spans.v1`, triplets: `${prefix}.triplets.v1`, scores: `${prefix}.scores.v1`, dlq: `${prefix}.triplets.dlq`, labels: `${prefix}.labels.v1`, topicModels: `${prefix}.topics.v1` },
        producer: { lingerMs: 5, maxRetryBackoffMs: 300, ...producer },
        consumer: { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 500, fetchMaxWaitMs: 200, ...consumer },
        ...rest,
      },
    },
    judge: judgeBaseUrl
      ? { kind: 'llm', baseUrl: judgeBaseUrl, apiKey: 'test-key', concurrency: 4, llm: { embeddings: 'endpoint', maxConcurrentRequests: 8, timeoutMs: 10_000 } }
      : { kind: 'embedded' },
    metrics: { processMetrics: false },
    log: { level: 'info' },
  };
}

/**
 * Posts `count` one-trace-each RAG requests as OTLP/JSON in requests of `perRequest` traces;
 * returns the trace ids. Texts cycle over `variants` contents (real traffic repeats questions and
 * chunks; the judge's content cache keeps the suite fast), trace ids are all distinct.
 */
export async function sendTraces(otlpUrl: string, count: number, perRequest = 50, tag = 'q', variants = 20): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += perRequest) {
    const resourceSpans: unknown[] = [];
    for (let n = start; n < Math.min(count, start + perRequest); n++) {
      const i = n % variants;
      const { body, traceId } = openInferenceTrace({
        query: `What is item ${tag}-${i}?`,
        documents: [{ id: `d${i}`, content: `Item ${tag}-${i} is a blue widget made in 2021.` }],
        response: `Item ${tag}-${i} is a blue widget.`,
        startMs: Date.now() - 3_000,
      });
      ids.push(traceId);
      resourceSpans.push(...(body.resourceSpans as unknown[]));
    }
    const res = await postOtlp(otlpUrl, JSON.stringify({ resourceSpans }));
    if (res.status !== 200) throw new Error(`OTLP POST answered ${res.status}: ${await res.text()}`);
  }
  return ids;
}

/** Scrapes one value (summed over matching series) from a process' /metrics; 0 when absent. */
export async function scrape(apiUrl: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${apiUrl}/metrics`)).text();
  return metricValue(text, name, labels) ?? 0;
}

/** A consumer that collects every message of a topic from the beginning. */
export interface TopicReader {
  messages: KafkaMessage[];
  stop(): Promise<void>;
}

/** Starts collecting a topic (own consumer group, from the beginning). */
export async function readTopic(brokers: string[], topic: string): Promise<TopicReader> {
  const kafka = new Kafka({ brokers, logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100 } });
  const messages: KafkaMessage[] = [];
  let consumer: Consumer;
  let stopped: Promise<void> | undefined;
  // A group join can crash the kafkajs consumer (a protocol error it does not retry, first seen on
  // librdkafka's mock); a reader that silently stopped would look like lost messages. Re-read from
  // the start with a fresh group instead (callers count distinct ids).
  const start = async (): Promise<void> => {
    consumer = kafka.consumer({ groupId: `reader-${randomUUID()}`, maxWaitTimeInMs: 200, sessionTimeout: 10_000 });
    const current = consumer;
    current.on(current.events.CRASH, (event) => {
      if (event.payload.restart || stopped) return;
      void current.disconnect().catch(() => undefined).then(() => (stopped ? undefined : start()));
    });
    await current.connect();
    await current.subscribe({ topic, fromBeginning: true });
    await current.run({ eachMessage: async ({ message }) => void messages.push(message) });
  };
  // Right after a role created the topic, a broker may not know it yet (UNKNOWN_TOPIC_OR_PARTITION): try again.
  for (let attempt = 1; ; attempt++) {
    try {
      await start();
      break;
    } catch (err) {
      await consumer!.disconnect().catch(() => undefined);
      if (attempt >= 60) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  return { messages, stop: () => (stopped ??= consumer.disconnect().catch(() => undefined)) };
}

/**
 * Every message value now in `topic`, read once from the beginning to the end of each partition by
 * `kcat -C -e` — no consumer group, so no join or rebalance can hide a partition. For topics whose
 * messages are already acknowledged; values must be single-line (JSON).
 */
export async function readTopicOnce(brokers: string[], topic: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)('kcat', ['-b', brokers.join(','), '-C', '-t', topic, '-o', 'beginning', '-e', '-q', '-f', '%s\n'], { timeout: 15_000, maxBuffer: 64 * 1024 * 1024 });
  return stdout.split('\n').filter((line) => line !== '');
}
