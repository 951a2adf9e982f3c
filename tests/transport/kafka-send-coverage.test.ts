import type { Kafka, Message, PartitionerArgs, ProducerRecord, RecordMetadata } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { BufferedKafkaProducer } from '../../src/transport/kafka-buffered-producer.ts';
import { recordingPartitioner, unacknowledged, type PartitionChoices } from '../../src/transport/kafka-send-coverage.ts';
import { Murmur2Partitioner } from '../../src/transport/murmur2-partitioner.ts';

const PARTITIONS = 4;
const partitionMetadata = Array.from({ length: PARTITIONS }, (_, i) => ({ partitionId: i, leader: 1 + (i % 3), partitionErrorCode: 0, replicas: [1, 2, 3], isr: [1, 2, 3] }));
const messages = (n: number): Message[] => Array.from({ length: n }, (_, i) => ({ key: `trace-${i}`, value: `v${i}` }));

/**
 * A kafkajs producer as far as the buffered producer sees it: partitions each message with the
 * partitioner it was created with, and answers one entry per written partition. `skip(call)` names
 * the partitions a call leaves out while resolving — what kafkajs 2.2.4 does when a partition's
 * leader moves to a broker that already answered in the same send (kafkajs issue #1303).
 */
function fakeKafka(skip: (call: number) => number[]) {
  const written: Array<{ partition: number; key: string }> = [];
  const calls: number[] = [];
  const kafka = {
    producer: (options: { createPartitioner: () => (args: PartitionerArgs) => number }) => {
      const partition = options.createPartitioner();
      return {
        connect: async () => undefined,
        disconnect: async () => undefined,
        send: async (record: ProducerRecord): Promise<RecordMetadata[]> => {
          calls.push(record.messages.length);
          const skipped = new Set(skip(calls.length));
          const byPartition = new Map<number, Message[]>();
          for (const message of record.messages) {
            const p = partition({ topic: record.topic, partitionMetadata, message });
            byPartition.set(p, [...(byPartition.get(p) ?? []), message]);
          }
          const answer: RecordMetadata[] = [];
          for (const [p, ms] of byPartition) {
            if (skipped.has(p)) continue;
            for (const m of ms) written.push({ partition: p, key: String(m.key) });
            answer.push({ topicName: record.topic, partition: p, errorCode: 0, baseOffset: '0' });
          }
          return answer;
        },
      };
    },
  } as unknown as Kafka;
  return { kafka, written, calls };
}

describe('kafka send coverage (kafkajs #1303)', () => {
  it('records the partition the inner partitioner chose for each message', () => {
    const assigned: PartitionChoices = new WeakMap();
    const choose = recordingPartitioner(Murmur2Partitioner, assigned)();
    const plain = Murmur2Partitioner();
    const chosen = new Set<number>();
    for (const m of messages(20)) {
      const p = choose({ topic: 't', partitionMetadata, message: m });
      expect(p).toBe(plain({ topic: 't', partitionMetadata, message: m }));
      expect(assigned.get(m)).toBe(p);
      chosen.add(p);
    }
    expect(chosen.size).toBeGreaterThan(1);
  });

  it('finds the messages of partitions missing from the answer or answered with an error', () => {
    const assigned: PartitionChoices = new WeakMap();
    const ms = messages(6);
    ms.forEach((m, i) => assigned.set(m, i % 3));
    const answer: RecordMetadata[] = [
      { topicName: 't', partition: 0, errorCode: 0 },
      { topicName: 't', partition: 1, errorCode: 6 },
      { topicName: 'other', partition: 2, errorCode: 0 },
    ];
    expect(unacknowledged('t', ms, answer, assigned).map((m) => m.key)).toEqual(['trace-1', 'trace-2', 'trace-4', 'trace-5']);
    expect(unacknowledged('t', [{ key: 'never-partitioned', value: 'x' }], answer, assigned)).toHaveLength(1);
  });

  it('sends again, alone, the messages a send resolved without writing; every message written once', async () => {
    const errors: unknown[] = [];
    const { kafka, written, calls } = fakeKafka((call) => (call === 1 ? [1, 3] : []));
    const producer = new BufferedKafkaProducer({ kafka, topic: 't', idempotent: true, onSendError: (e) => errors.push(e) });
    const batch = messages(40);
    await producer.sendNow('t', batch);
    const lostFirst = batch.filter((m) => [1, 3].includes(Murmur2Partitioner()({ topic: 't', partitionMetadata, message: m })));
    expect(lostFirst.length).toBeGreaterThan(0);
    expect(calls).toEqual([40, lostFirst.length]);
    expect(written.map((w) => w.key).sort()).toEqual(batch.map((m) => String(m.key)).sort());
    expect(new Set(written.map((w) => w.key)).size).toBe(40);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).name).toBe('UnacknowledgedSendError');
    await producer.shutdown(100);
  });

  it('gives up after five sends that leave a partition unwritten, so the batch is retried by the buffer', async () => {
    const { kafka, calls } = fakeKafka(() => [2]);
    const producer = new BufferedKafkaProducer({ kafka, topic: 't', idempotent: true });
    await expect(producer.sendNow('t', messages(40))).rejects.toThrow(/had no acknowledged partition after 5 sends/);
    expect(calls).toHaveLength(5);
    await producer.shutdown(100);
  });
});
