/**
 * The real-Kafka test helper itself (tests/helpers/kafka-broker.ts): a three-node KRaft cluster
 * replicates, survives `kill -9` of one node with an idempotent acks=all producer, and takes the node
 * back; a SASL_SSL listener accepts both SCRAM mechanisms and refuses a wrong password and an
 * untrusted CA. Plain kafkajs here: ragwatch's own behaviour on these brokers is tested elsewhere.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveKafka, makeCertificates, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';

const ok = haveKafka('kafka-broker');

describe.skipIf(!ok)('real Kafka helper: three nodes', () => {
  let kafka: KafkaTestCluster;
  beforeAll(async () => {
    kafka = await startKafkaCluster({ nodes: 3 });
  }, 180_000);
  afterAll(() => kafka?.stop());

  it('replicates a topic over three nodes and keeps every acknowledged record across a kill -9 and restart', async () => {
    await kafka.createTopic('helper-replicated', 3);
    const admin = await kafka.admin();
    const meta = await admin.fetchTopicMetadata({ topics: ['helper-replicated'] });
    expect(meta.topics[0]!.partitions.map((p) => p.replicas.length)).toEqual([3, 3, 3]);

    const client = new Kafka({ clientId: 'helper-test', brokers: kafka.brokers, logLevel: logLevel.NOTHING });
    const producer = client.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const batch = (from: number) => Array.from({ length: 50 }, (_, i) => ({ key: `k${from + i}`, value: String(from + i) }));
    // Leaders move once the controller fences the dead node (broker.session.timeout.ms, 9 s); until then
    // kafkajs may bail out of a send (it asks the dead, still "connected" broker for metadata): send again.
    const send = async (from: number) => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        try {
          return await producer.send({ topic: 'helper-replicated', acks: -1, messages: batch(from) });
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    };
    await send(0);
    const victim = meta.topics[0]!.partitions[0]!.leader - 1;
    const pid = kafka.pid(victim);
    await kafka.kill(victim);
    expect(kafka.pid(victim)).toBeUndefined();
    expect(() => process.kill(pid!, 0)).toThrow();
    await send(50); // leaders move to the two survivors; min.insync.replicas 2 still holds
    await kafka.restart(victim);
    expect(kafka.pid(victim)).toBeGreaterThan(0);
    await send(100);
    await producer.disconnect();

    const described = await admin.describeCluster();
    expect(described.brokers.map((b) => b.nodeId).sort()).toEqual([1, 2, 3]);
    // Every acknowledged record is there (a re-sent batch may have landed twice: count distinct values).
    const consumer = client.consumer({ groupId: 'helper-replicated-reader' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'helper-replicated', fromBeginning: true });
    const seen = new Set<string>();
    await new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          seen.add(message.value!.toString());
          if (seen.size === 150) resolve();
        },
      });
    });
    await consumer.disconnect();
    expect([...seen].map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 150 }, (_, i) => i));
  }, 180_000);
});

describe.skipIf(!ok)('real Kafka helper: SASL/SCRAM over TLS', () => {
  let kafka: KafkaTestCluster;
  const users = [
    { mechanism: 'SCRAM-SHA-256' as const, name: 'alice', password: 'alice-secret' },
    { mechanism: 'SCRAM-SHA-512' as const, name: 'bob', password: 'bob-secret' },
  ];
  beforeAll(async () => {
    kafka = await startKafkaCluster({ sasl: { users }, tls: true });
  }, 180_000);
  afterAll(() => kafka?.stop());

  const connect = async (mechanism: 'scram-sha-256' | 'scram-sha-512', username: string, password: string, ca = kafka.tls!.ca) => {
    const admin = new Kafka({
      clientId: 'helper-sasl',
      brokers: kafka.secureBrokers,
      ssl: { ca: [ca] },
      sasl: mechanism === 'scram-sha-256' ? { mechanism, username, password } : { mechanism, username, password },
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
      connectionTimeout: 5000,
    }).admin();
    try {
      await admin.connect();
      return (await admin.describeCluster()).brokers.length;
    } finally {
      await admin.disconnect();
    }
  };

  it('accepts both SCRAM mechanisms with the right password over the CA it made', async () => {
    expect(await connect('scram-sha-256', 'alice', 'alice-secret')).toBe(1);
    expect(await connect('scram-sha-512', 'bob', 'bob-secret')).toBe(1);
  });

  it('refuses a wrong password and a mechanism the user has no credential for', async () => {
    await expect(connect('scram-sha-256', 'alice', 'wrong')).rejects.toThrow(/SASL SCRAM SHA256 authentication failed|Authentication failed/i);
    await expect(connect('scram-sha-512', 'alice', 'alice-secret')).rejects.toThrow(/authentication failed/i);
  });

  it('fails the TLS handshake against a CA that did not sign the broker', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'other-ca-'));
    try {
      const other = makeCertificates(dir, 'untrusted');
      await expect(connect('scram-sha-256', 'alice', 'alice-secret', other.ca)).rejects.toThrow(/certificate|self.signed|verify/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
