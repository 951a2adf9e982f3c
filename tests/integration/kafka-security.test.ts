/**
 * ragwatch against a secured Apache Kafka (one KRaft node, StandardAuthorizer): SASL/SCRAM-SHA-256
 * and -512 over TLS with a CA and a broker certificate the test makes (SAN IP:127.0.0.1), ACLs per
 * principal. The right credentials carry traces collector → scorer; a wrong password and an
 * untrusted certificate each give a log line naming the cause and the config key, `/readyz` 503, a
 * `ragwatch_kafka_connection_errors_total{reason}` count that grows slowly (backoff: no tight loop)
 * while the process stays up; a principal without CREATE gets an error naming the topic and the
 * missing permission, and becomes ready once an operator grants it.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScoreRecord } from '../../src/triplet.ts';
import { haveKafka, makeCertificates, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { waitFor } from '../helpers/process.ts';
import { readTopic, roleConfig, scrape, sendTraces, startRole, type RoleProcess, type TopicReader } from './kafka-process.ts';

const enabled = haveKafka('tests/integration/kafka-security.test.ts');

const USERS = [
  { mechanism: 'SCRAM-SHA-256' as const, name: 'alice', password: 'alice-pass-256' },
  { mechanism: 'SCRAM-SHA-512' as const, name: 'bob', password: 'bob-pass-512' },
  { mechanism: 'SCRAM-SHA-256' as const, name: 'carol', password: 'carol-pass-256' },
];

describe.skipIf(!enabled)('SASL/SCRAM over TLS, ACLs', () => {
  let kafka: KafkaTestCluster;
  let scratch: string;
  let caFile: string;
  let untrustedCaFile: string;
  const procs: RoleProcess[] = [];
  const readers: TopicReader[] = [];

  /** ACLs on everything named `<prefix>…` (topics and groups) for `user`. */
  const grant = async (user: string, prefix: string, operations: AclOperationTypes[]) => {
    const admin = await kafka.admin();
    const acl = [AclResourceTypes.TOPIC, AclResourceTypes.GROUP].flatMap((resourceType) =>
      operations.map((operation) => ({ resourceType, resourceName: prefix, resourcePatternType: ResourcePatternTypes.PREFIXED, principal: `User:${user}`, host: '*', operation, permissionType: AclPermissionTypes.ALLOW })),
    );
    await admin.createAcls({ acl });
  };

  /** A role's config on the SASL_SSL listener as `user` (password `password`), trusting `ca`. */
  const secured = (prefix: string, mechanism: 'scram-sha-256' | 'scram-sha-512', username: string, password: string, ca = caFile) => {
    const config = roleConfig(kafka.secureBrokers, prefix, { tls: { enabled: true, caFile: ca }, sasl: { mechanism, username, password }, connectionTimeoutMs: 3_000 });
    return config;
  };

  beforeAll(async () => {
    kafka = await startKafkaCluster({ sasl: { users: USERS }, tls: true, authorizer: true });
    scratch = mkdtempSync(join(tmpdir(), 'kafka-security-'));
    caFile = join(scratch, 'ca.pem');
    writeFileSync(caFile, kafka.tls!.ca);
    mkdirSync(join(scratch, 'untrusted'));
    untrustedCaFile = makeCertificates(join(scratch, 'untrusted'), 'untrusted').caFile;
    await grant('alice', 'sec-', [AclOperationTypes.ALL]);
    await grant('bob', 'sec-', [AclOperationTypes.ALL]);
    // carol may read, write and describe her topics and groups, but not create topics.
    await grant('carol', 'carol-', [AclOperationTypes.READ, AclOperationTypes.WRITE, AclOperationTypes.DESCRIBE]);
  }, 180_000);
  afterAll(async () => {
    for (const r of readers) await r.stop();
    for (const p of procs) await p.cleanup();
    await kafka?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const ready = async (p: RoleProcess) => (await fetch(`${p.apiUrl}/readyz`)).status;
  const logLines = (p: RoleProcess) => p.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);

  it('carries traces collector → scorer with SCRAM-SHA-256 and SCRAM-SHA-512 over TLS', async () => {
    const prefix = `sec-ok-${randomUUID().slice(0, 8)}`;
    const [collector, scorer] = await Promise.all([
      startRole('collector', secured(prefix, 'scram-sha-256', 'alice', 'alice-pass-256')),
      startRole('scorer', secured(prefix, 'scram-sha-512', 'bob', 'bob-pass-512')),
    ]);
    procs.push(collector!, scorer!);
    await waitFor(async () => (await ready(collector!)) === 200 && (await ready(scorer!)) === 200, 60_000, 250).catch((err: unknown) => {
      console.log(`COLLECTOR\n${collector!.output().slice(-3000)}\nSCORER\n${scorer!.output().slice(-3000)}`);
      throw err;
    });
    const scores = await readTopic(kafka.brokers, `${prefix}.scores.v1`);
    readers.push(scores);
    const sent = new Set(await sendTraces(collector!.otlpUrl!, 40, 20, 'sec'));
    await waitFor(() => new Set(scores.messages.map((m) => (JSON.parse(String(m.value)) as ScoreRecord).traceId)).size === 40, 60_000, 250);
    expect(scores.messages.every((m) => sent.has((JSON.parse(String(m.value)) as ScoreRecord).traceId))).toBe(true);
    expect(await scrape(collector!.apiUrl, 'ragwatch_kafka_connection_errors_total')).toBe(0);
    expect(await scrape(scorer!.apiUrl, 'ragwatch_kafka_connection_errors_total')).toBe(0);
    // Topics created by the roles themselves, as the principals they are (not by auto-creation).
    const meta = await (await kafka.admin()).fetchTopicMetadata({ topics: [`${prefix}.triplets.v1`] });
    expect(meta.topics[0]!.partitions).toHaveLength(4);
  }, 120_000);

  /** Watches a role refused by the cluster for `watchMs`: not ready, alive, the cause logged and counted, slowly. */
  const refused = async (role: 'collector' | 'scorer', config: Record<string, unknown>, reason: string, hint: RegExp, watchMs = 12_000) => {
    const p = await startRole(role, config);
    procs.push(p);
    await waitFor(async () => (await scrape(p.apiUrl, 'ragwatch_kafka_connection_errors_total', { reason })) > 0, 30_000, 250).catch((err: unknown) => {
      console.log(`${role.toUpperCase()}\n${p.output().slice(-4000)}`);
      throw err;
    });
    const first = await scrape(p.apiUrl, 'ragwatch_kafka_connection_errors_total', { reason });
    const t0 = Date.now();
    while (Date.now() - t0 < watchMs) {
      expect(await ready(p)).toBe(503);
      await new Promise((r) => setTimeout(r, 500));
    }
    const attempts = (await scrape(p.apiUrl, 'ragwatch_kafka_connection_errors_total', { reason })) - first;
    expect(p.child.exitCode).toBeNull();
    const lines = logLines(p).filter((l) => l.reason === reason && (l.level as number) >= 50);
    expect(lines.length).toBeGreaterThan(0);
    expect(String(lines[0]!.hint)).toMatch(hint);
    return { attempts, lines, p };
  };

  it('a wrong password: scorer and collector log an authentication error naming transport.kafka.sasl, stay not ready, retry with backoff', async () => {
    const prefix = `sec-pw-${randomUUID().slice(0, 8)}`;
    const scorer = await refused('scorer', secured(prefix, 'scram-sha-256', 'alice', 'wrong-password'), 'authentication', /transport\.kafka\.sasl/);
    // Backoff: a handful of attempts in 12 s (1 s doubling to 30 s), never a tight loop.
    expect(scorer.attempts).toBeLessThanOrEqual(6);
    expect(String(scorer.lines[0]!.err)).toMatch(/authentication failed/i);
    const collector = await refused('collector', secured(prefix, 'scram-sha-256', 'alice', 'wrong-password'), 'authentication', /transport\.kafka\.sasl/);
    expect(collector.attempts).toBeLessThanOrEqual(8);
  }, 120_000);

  it('an untrusted broker certificate: a TLS error naming transport.kafka.tls.caFile, not ready, backoff', async () => {
    const prefix = `sec-ca-${randomUUID().slice(0, 8)}`;
    const scorer = await refused('scorer', secured(prefix, 'scram-sha-256', 'alice', 'alice-pass-256', untrustedCaFile), 'tls', /transport\.kafka\.tls\.caFile/);
    expect(scorer.attempts).toBeLessThanOrEqual(6);
    expect(String(scorer.lines[0]!.err)).toMatch(/certificate/i);
    const collector = await refused('collector', secured(prefix, 'scram-sha-256', 'alice', 'alice-pass-256', untrustedCaFile), 'tls', /transport\.kafka\.tls\.caFile/);
    expect(collector.attempts).toBeLessThanOrEqual(8);
  }, 120_000);

  it('a principal without CREATE: the error names the topic and the permission; ready once CREATE is granted', async () => {
    const prefix = `carol-${randomUUID().slice(0, 8)}`;
    const { p: scorer } = await refused('scorer', secured(prefix, 'scram-sha-256', 'carol', 'carol-pass-256'), 'authorization', /ACL|grant/, 4_000);
    // The scorer's own topics (the labels and topic-models topics are refused the same way, on their own lines).
    const line = await waitFor(() => logLines(scorer).find((l) => l.msg === 'kafka topics not ready' && String(l.err).includes('.triplets.v1')), 20_000, 250);
    expect(String(line?.err)).toContain(`topic "${prefix}.triplets.v1": "carol" may not create it`);
    expect(String(line?.err)).toMatch(/CREATE/);
    await grant('carol', 'carol-', [AclOperationTypes.CREATE]);
    // The next attempt (backoff ≤ 30 s) creates the topics; the scorer joins and becomes ready.
    await waitFor(async () => (await ready(scorer)) === 200, 60_000, 500);
    const meta = await (await kafka.admin()).fetchTopicMetadata({ topics: [`${prefix}.triplets.v1`, `${prefix}.scores.v1`] });
    expect(meta.topics.map((t) => t.partitions.length)).toEqual([4, 4]);
  }, 150_000);
});
