/**
 * Real Apache Kafka for tests: KRaft nodes (broker + controller in one JVM) from the Maven Central jars
 * pinned in scripts/kafka/ (docs/kafka.md, docs/testing.md). Start one cluster per test file in
 * `beforeAll` (with a hook timeout of ~180 s: three JVMs on two loaded cores take 20–40 s) and give
 * each test its own topics and group ids.
 *
 * ```ts
 * const ok = haveKafka('kafka-roles');
 * describe.skipIf(!ok)('…', () => {
 *   let kafka: KafkaTestCluster;
 *   beforeAll(async () => { kafka = await startKafkaCluster({ nodes: 3 }); }, 180_000);
 *   afterAll(() => kafka?.stop());
 *   it('…', async () => { … kafka.brokers … await kafka.kill(1); … await kafka.restart(1); });
 * });
 * ```
 *
 * The Kafka version is scripts/kafka/DEFAULT_VERSION unless `RAGWATCH_KAFKA_VERSION` names another
 * pinned one (`RAGWATCH_KAFKA_VERSION=4.1.1 npm run test:integration` runs the layer against 4.x).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, type Admin, type KafkaConfig } from 'kafkajs';
import { resolveJars, startCluster, type KafkaCluster } from '../../scripts/kafka/cluster.ts';
import type { ScramUser } from '../../scripts/kafka/node-config.ts';
import { which } from './prometheus.ts';

export type { ScramUser } from '../../scripts/kafka/node-config.ts';

/** The Kafka version the tests run: `RAGWATCH_KAFKA_VERSION`, else scripts/kafka/DEFAULT_VERSION. */
export const KAFKA_VERSION = process.env.RAGWATCH_KAFKA_VERSION ?? readFileSync(new URL('../../scripts/kafka/DEFAULT_VERSION', import.meta.url), 'utf8').trim();

const libsByVersion = new Map<string, string>();

/**
 * True when Java and the broker jars are there (the jars are resolved into the cache with `mvn` if
 * they are not yet: scripts/kafka/jars.sh). Missing locally: a loud warning and false (the caller
 * skips). Missing under CI=true: throws, so the suite fails instead of silently skipping.
 */
export function haveKafka(suite: string, version = KAFKA_VERSION): boolean {
  if (libsByVersion.has(version)) return true;
  const skip = (why: string): false => {
    const msg = `${suite}: ${why} — real Kafka (docs/kafka.md) needs it`;
    if (process.env.CI === 'true') throw new Error(`${msg}; required under CI=true`);
    console.warn(`\n!!!!! SKIPPING ${msg} !!!!!\n`);
    return false;
  };
  if (!process.env.JAVA_HOME && !which('java')) return skip('java (17+) is not installed');
  if (!which('openssl')) return skip('openssl is not installed (test certificates)');
  try {
    libsByVersion.set(version, resolveJars(version));
    return true;
  } catch (err) {
    return skip(`the Kafka ${version} jars are not cached and could not be resolved (bash scripts/kafka/jars.sh ${version}; needs mvn): ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Options of {@link startKafkaCluster}; all optional. */
export interface KafkaTestOptions {
  /** 1 (default) or 3 nodes: 3 where replication or failover matters (RF 3, min.insync.replicas 2). */
  nodes?: 1 | 3;
  /** A pinned version other than {@link KAFKA_VERSION}. */
  version?: string;
  /** SCRAM users (SHA-256 and/or -512) on a secured listener: SASL_SSL with `tls`, else SASL_PLAINTEXT. */
  sasl?: { users: ScramUser[] };
  /** TLS on the secured listener, with a CA and a server certificate (SAN IP:127.0.0.1) the helper makes. */
  tls?: boolean;
  /** StandardAuthorizer: SASL principals get only the ACLs a test creates (PLAINTEXT is super user). */
  authorizer?: boolean;
  /** Extra broker properties. */
  properties?: Record<string, string | number | boolean>;
}

/** A running test cluster: {@link KafkaCluster} plus what clients need to reach the secured listener. */
export interface KafkaTestCluster extends KafkaCluster {
  /** PEM of the CA that signed the brokers' certificate (with `tls`), and its file. */
  tls?: { ca: string; caFile: string };
  /** The SCRAM users the cluster was formatted with. */
  users: ScramUser[];
  /** A connected admin on the PLAINTEXT listener (super user); disconnected by stop(). */
  admin(): Promise<Admin>;
  /** Creates topics on the PLAINTEXT listener and waits for their leaders. */
  createTopic(topic: string, numPartitions?: number, config?: Record<string, string>): Promise<void>;
  /** kill -9 every node and remove the data (what tests need; the data is thrown away). Idempotent. */
  stop(): Promise<void>;
}

/**
 * Polls until every broker knows every partition of `topic` with a leader. kafkajs' own
 * `waitForLeaders` gives up on UNKNOWN_TOPIC_OR_PARTITION, which a KRaft broker answers until the new
 * topic reached its copy of the metadata, and asks one random broker only.
 */
export async function waitForTopic(brokers: string[], topic: string, numPartitions: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const broker of brokers) {
    // One admin per broker: its metadata requests go to its only connection, the seed.
    const admin = new Kafka({ clientId: 'kafka-broker-helper', brokers: [broker], logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
    try {
      await admin.connect();
      for (;;) {
        try {
          const parts = (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]?.partitions ?? [];
          if (parts.length === numPartitions && parts.every((p) => p.leader >= 0)) break;
        } catch {
          /* not known yet */
        }
        if (Date.now() > deadline) throw new Error(`topic ${topic}: ${broker} does not know every partition with a leader after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }
}

/** A self-signed CA and a server certificate/key for 127.0.0.1, made with openssl (EC P-256, 2 days). */
export function makeCertificates(dir: string, name = 'ragwatch-test'): { ca: string; caFile: string; caKeyFile: string; keystorePemFile: string } {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', `/CN=${name}-ca`);
  run('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'san.ext');
  const keystorePemFile = join(dir, 'keystore.pem');
  writeFileSync(keystorePemFile, readFileSync(join(dir, 'server.key'), 'utf8') + readFileSync(join(dir, 'server.pem'), 'utf8'));
  return { ca: readFileSync(join(dir, 'ca.pem'), 'utf8'), caFile: join(dir, 'ca.pem'), caKeyFile: join(dir, 'ca.key'), keystorePemFile };
}

/**
 * Starts a real Kafka cluster on loopback (free ports, temporary data) and resolves once every node
 * is listed in the cluster metadata. Call {@link haveKafka} first (it resolves the jars).
 * `kill(i)` is `kill -9` of node i (0-based); `restart(i)` brings it back on the same ports and data.
 */
export async function startKafkaCluster(options: KafkaTestOptions = {}): Promise<KafkaTestCluster> {
  const version = options.version ?? KAFKA_VERSION;
  if (!libsByVersion.has(version) && !haveKafka('startKafkaCluster', version)) throw new Error(`Kafka ${version} is not available (see the warning above)`);
  const dir = mkdtempSync(join(tmpdir(), 'ragwatch-kafka-test-'));
  const certs = options.tls ? makeCertificates(dir) : undefined;
  const users = options.sasl?.users ?? [];
  const protocol = options.sasl ? (options.tls ? 'SASL_SSL' : 'SASL_PLAINTEXT') : options.tls ? 'SSL' : undefined;
  let cluster: KafkaCluster;
  try {
    cluster = await startCluster({
      libsDir: libsByVersion.get(version)!,
      version,
      nodes: options.nodes ?? 1,
      dir: join(dir, 'cluster'),
      ...(protocol ? { secure: { protocol, users, ...(certs ? { keystorePemFile: certs.keystorePemFile } : {}) } } : {}),
      ...(options.authorizer ? { authorizer: true } : {}),
      ...(options.properties ? { properties: options.properties } : {}),
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  // Retries past a failover (the controller fences a dead node after broker.session.timeout.ms, 9 s).
  const config: KafkaConfig = { clientId: 'kafka-broker-helper', brokers: cluster.brokers, logLevel: logLevel.NOTHING, retry: { retries: 12, maxRetryTime: 5000 } };
  let admin: Promise<Admin> | undefined;
  const getAdmin = (): Promise<Admin> =>
    (admin ??= (async () => {
      const a = new Kafka(config).admin();
      await a.connect();
      return a;
    })());
  let stopped: Promise<void> | undefined;
  return {
    ...cluster,
    ...(certs ? { tls: { ca: certs.ca, caFile: certs.caFile } } : {}),
    users,
    admin: getAdmin,
    async createTopic(topic, numPartitions = 4, configEntries = {}) {
      const a = await getAdmin();
      await a.createTopics({
        waitForLeaders: false,
        topics: [{ topic, numPartitions, configEntries: Object.entries(configEntries).map(([name, value]) => ({ name, value })) }],
      });
      await waitForTopic(cluster.brokers.filter((_, i) => cluster.pid(i) !== undefined), topic, numPartitions);
    },
    stop: () =>
      (stopped ??= (async () => {
        if (admin) await (await admin).disconnect().catch(() => undefined);
        await cluster.stop(0);
        rmSync(dir, { recursive: true, force: true });
      })()),
  };
}
