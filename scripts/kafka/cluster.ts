/**
 * Starts Apache Kafka KRaft nodes (broker and controller in one JVM each) from the jars that
 * scripts/kafka/jars.sh resolved: free loopback ports, a temporary data directory, `StorageTool
 * format`, then `kafka.Kafka server.properties`, ready when every node logged "Kafka Server started"
 * and the cluster's metadata lists it. Used by the tests (tests/helpers/kafka-broker.ts) and by
 * `npm run kafka:local` (scripts/kafka/local.ts). Each JVM runs under scripts/kafka/run-node.sh,
 * which ends it when this process is gone, however it ended.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { freePorts } from '../lib/free-ports.ts';
import { formatArgs, loggingConfig, serverProperties, type ClusterShape, type NodePorts, type ScramUser, type SecureProtocol } from './node-config.ts';

const HERE = import.meta.dirname;

/** Options of {@link startCluster}; all but `libsDir` and `version` optional. */
export interface ClusterOptions {
  /** Directory of the broker jars (the output of `scripts/kafka/jars.sh VERSION`). */
  libsDir: string;
  /** Kafka version of those jars (picks the logging configuration). */
  version: string;
  /** 1 or 3 nodes (default 1). */
  nodes?: 1 | 3;
  /** Where data, configs and logs go (default: a new directory under the OS temp dir, removed by stop()). */
  dir?: string;
  /** A secured client listener beside PLAINTEXT (which stays for inter-broker traffic and the tests' admin). */
  secure?: { protocol: SecureProtocol; keystorePemFile?: string; users?: ScramUser[] };
  /** StandardAuthorizer: only `User:ANONYMOUS` (the PLAINTEXT listener) is a super user. */
  authorizer?: boolean;
  /** Extra broker properties (override the defaults of node-config.ts). */
  properties?: Record<string, string | number | boolean>;
  /** Heap per JVM (default 256 MB). */
  heapMb?: number;
  /** The java binary (default $JAVA_HOME/bin/java, else `java` on PATH). */
  java?: string;
  /** Time to wait for a node to be ready (default 90 s: three JVMs starting together on two loaded cores). */
  readyTimeoutMs?: number;
  /** Fixed PLAINTEXT ports, one per node (default: free ports). */
  plainPorts?: number[];
}

/** A running cluster. Node indexes are 0-based; node.id = index + 1. */
export interface KafkaCluster {
  version: string;
  /** `127.0.0.1:port` of every node's PLAINTEXT listener. */
  brokers: string[];
  /** `127.0.0.1:port` of every node's secured listener (empty without `secure`). */
  secureBrokers: string[];
  /** The data/config/log directory. */
  dir: string;
  /** The JVM's pid of a node, undefined while it is down. */
  pid(nodeIndex: number): number | undefined;
  /** The node's log file (appended across restarts). */
  logFile(nodeIndex: number): string;
  /** kill -9 of one node's JVM; resolves when it is gone. */
  kill(nodeIndex: number): Promise<void>;
  /** Starts a killed node again on the same ports and data; resolves when the cluster lists it. */
  restart(nodeIndex: number): Promise<void>;
  /** SIGTERM to every node, SIGKILL after `graceMs` (default 5 s), data directory removed. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

interface NodeProcess {
  child: ChildProcess;
  pid?: number;
  exited: Promise<void>;
}

/** Kafka's cluster id: 16 random bytes, base64url, not starting with '-' (as `Uuid.randomUuid`). */
function clusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/** The node ids one broker's metadata lists (unfenced brokers); the admin's only connection is that broker. */
async function liveNodeIds(broker: string): Promise<number[]> {
  const admin = new Kafka({ clientId: 'ragwatch-kafka-cluster', brokers: [broker], logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 2000 }).admin();
  try {
    await admin.connect();
    return (await admin.describeCluster()).brokers.map((b) => b.nodeId);
  } catch {
    return [];
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts the cluster and resolves when every node is ready. Rejects (and cleans up) otherwise; a node
 * that could not bind a chosen port (taken between the choice and the bind) starts the cluster over
 * on new ports, at most three times.
 */
export async function startCluster(options: ClusterOptions): Promise<KafkaCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (err) {
      const portTaken = err instanceof Error && /Address already in use/.test(err.message);
      if (!portTaken || options.plainPorts || attempt >= 3) throw err;
      process.stderr.write(`kafka: a chosen port was taken before the node bound it; starting the cluster again on new ports (attempt ${attempt + 1})\n`);
    }
  }
}

async function startOnce(options: ClusterOptions): Promise<KafkaCluster> {
  const n = options.nodes ?? 1;
  const heapMb = options.heapMb ?? 256;
  const readyTimeoutMs = options.readyTimeoutMs ?? 90_000;
  const java = options.java ?? (process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', 'java') : 'java');
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'ragwatch-kafka-'));
  mkdirSync(dir, { recursive: true });

  const free = await freePorts(n * (options.secure ? 3 : 2) - (options.plainPorts ? n : 0));
  const ports: NodePorts[] = Array.from({ length: n }, (_, i) => ({
    plain: options.plainPorts?.[i] ?? free.shift()!,
    controller: free.shift()!,
    ...(options.secure ? { secure: free.shift()! } : {}),
  }));
  const shape: ClusterShape = {
    ports,
    ...(options.secure ? { secure: { protocol: options.secure.protocol, ...(options.secure.keystorePemFile ? { keystorePemFile: options.secure.keystorePemFile } : {}) } } : {}),
    ...(options.authorizer ? { authorizer: true } : {}),
    ...(options.properties ? { properties: options.properties } : {}),
  };
  const brokers = ports.map((p) => `127.0.0.1:${p.plain}`);
  const id = clusterId();
  const logging = loggingConfig(options.version, join(dir, options.version.startsWith('3.') ? 'log4j.properties' : 'log4j2.properties'));
  writeFileSync(logging.jvmProperty.replace(/^-D[^=]+=(file:)?/, ''), logging.text);
  const classpath = `${options.libsDir}/*`;
  const nodeDir = (i: number) => join(dir, `node-${i + 1}`);
  const propsFile = (i: number) => join(nodeDir(i), 'server.properties');
  const logFile = (i: number) => join(nodeDir(i), 'server.log');

  for (let i = 0; i < n; i++) {
    rmSync(nodeDir(i), { recursive: true, force: true }); // an earlier attempt's formatted data
    mkdirSync(join(nodeDir(i), 'data'), { recursive: true });
    writeFileSync(propsFile(i), serverProperties(shape, i, join(nodeDir(i), 'data')));
  }
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(java, ['-Xmx128m', '-XX:+UseSerialGC', '-cp', classpath, logging.jvmProperty, ...formatArgs(id, propsFile(i), options.secure?.users)], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
        child.once('error', reject);
        child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`kafka storage format of node ${i + 1} failed (exit ${code}): ${out.slice(-2000)}`))));
      }),
    ),
  );

  const procs: (NodeProcess | undefined)[] = new Array(n).fill(undefined);
  const logs: WriteStream[] = Array.from({ length: n }, (_, i) => createWriteStream(logFile(i), { flags: 'a' }));

  /** Spawns node i; resolves when it logged that it started. */
  const launch = (i: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const args = [
        `-Xms${Math.min(128, heapMb)}m`, `-Xmx${heapMb}m`, '-XX:+UseSerialGC', '-XX:+ExitOnOutOfMemoryError', '-XX:-UsePerfData',
        '-Djava.awt.headless=true', logging.jvmProperty, `-Dkafka.logs.dir=${nodeDir(i)}`,
        '-cp', classpath, 'kafka.Kafka', propsFile(i),
      ];
      const child = spawn('bash', [join(HERE, 'run-node.sh'), java, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
      const proc: NodeProcess = { child, exited: new Promise((r) => child.once('exit', () => r())) };
      procs[i] = proc;
      let tail = '';
      let ready = false;
      const timer = setTimeout(() => fail(new Error(`kafka node ${i + 1} not ready within ${readyTimeoutMs} ms; log ${logFile(i)}:\n${tail.slice(-3000)}`)), readyTimeoutMs);
      const fail = (err: Error) => {
        if (ready) return;
        ready = true;
        clearTimeout(timer);
        reject(err);
      };
      let partial = '';
      const onData = (d: Buffer) => {
        logs[i]!.write(d);
        tail = (tail + d.toString()).slice(-8000);
        if (proc.pid === undefined) {
          partial += d.toString();
          const m = /ragwatch-kafka-pid (\d+)/.exec(partial);
          if (m) proc.pid = Number(m[1]);
        }
        if (!ready && tail.includes('Kafka Server started')) {
          ready = true;
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('error', (err) => fail(err));
      child.once('exit', (code, signal) => {
        if (procs[i] === proc) procs[i] = undefined;
        fail(new Error(`kafka node ${i + 1} exited before it was ready (${signal ?? `exit ${code}`}); log ${logFile(i)}:\n${tail.slice(-3000)}`));
      });
    });

  /** Waits until every running node's own metadata lists `ids` (brokers learn the metadata log at their own pace). */
  const waitListed = async (ids: number[]): Promise<void> => {
    const deadline = Date.now() + readyTimeoutMs;
    for (const [i, broker] of brokers.entries()) {
      if (!procs[i]) continue;
      for (;;) {
        const live = await liveNodeIds(broker);
        if (ids.every((x) => live.includes(x))) break;
        if (Date.now() > deadline) throw new Error(`kafka: node ${i + 1} does not list nodes ${ids.join(',')} within ${readyTimeoutMs} ms (it lists: ${live.join(',') || 'none'})`);
        await sleep(200);
      }
    }
  };

  const killNode = async (i: number, signal: NodeJS.Signals): Promise<void> => {
    const proc = procs[i];
    if (!proc) return;
    if (proc.pid !== undefined) {
      try {
        process.kill(proc.pid, signal);
      } catch {
        /* already gone */
      }
    } else proc.child.kill('SIGKILL');
    await proc.exited;
  };

  let stopped: Promise<void> | undefined;
  const stop = (graceMs = 5000): Promise<void> =>
    (stopped ??= (async () => {
      await Promise.all(
        procs.map(async (proc, i) => {
          if (!proc) return;
          const t = setTimeout(() => void killNode(i, 'SIGKILL'), graceMs);
          await killNode(i, 'SIGTERM');
          clearTimeout(t);
        }),
      );
      await Promise.all(logs.map((l) => new Promise<void>((r) => l.end(() => r()))));
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    })());

  try {
    await Promise.all(Array.from({ length: n }, (_, i) => launch(i)));
    await waitListed(Array.from({ length: n }, (_, i) => i + 1));
  } catch (err) {
    await stop(0);
    throw err;
  }

  return {
    version: options.version,
    brokers,
    secureBrokers: options.secure ? ports.map((p) => `127.0.0.1:${p.secure}`) : [],
    dir,
    pid: (i) => procs[i]?.pid,
    logFile,
    kill: (i) => killNode(i, 'SIGKILL'),
    async restart(i) {
      if (stopped) throw new Error('kafka cluster is stopped');
      await killNode(i, 'SIGKILL');
      await launch(i);
      await waitListed([i + 1]);
    },
    stop,
  };
}

/** The libs directory of `version`, resolving (and caching) the jars with scripts/kafka/jars.sh when needed. */
export function resolveJars(version?: string): string {
  const out = execFileSync('bash', [join(HERE, 'jars.sh'), ...(version ? [version] : [])], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return out.trim().split('\n').at(-1)!;
}
