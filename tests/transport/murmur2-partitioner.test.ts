import { randomBytes } from 'node:crypto';
import { Partitioners, type PartitionMetadata } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { Murmur2Partitioner, murmur2 } from '../../src/transport/murmur2-partitioner.ts';

const metadata = (n: number, leaderless: number[] = []): PartitionMetadata[] =>
  Array.from({ length: n }, (_, partitionId) => ({ partitionId, leader: leaderless.includes(partitionId) ? -1 : 0, replicas: [0], isr: [0], offlineReplicas: [], partitionErrorCode: 0 }));

describe('Murmur2Partitioner', () => {
  it('puts every key on the partition kafkajs’ DefaultPartitioner (and the Java client) picks', () => {
    const theirs = Partitioners.DefaultPartitioner();
    const ours = Murmur2Partitioner();
    const keys = [
      ...Array.from({ length: 2_000 }, () => randomBytes(16).toString('hex')),
      ...Array.from({ length: 500 }, (_, i) => randomBytes(i % 37)),
      '', 'a', 'ab', 'abc', 'ünïcödé ключ 键', '\u{1F600}',
    ];
    for (const n of [1, 3, 12, 50]) {
      for (const key of keys) {
        const args = { topic: 't', partitionMetadata: metadata(n), message: { key, value: 'v' } };
        expect(ours(args), `key ${String(key)} over ${n}`).toBe(theirs(args));
      }
    }
  });

  it('matches Kafka’s published murmur2 values', () => {
    // org.apache.kafka.common.utils.UtilsTest#testMurmur2
    expect(murmur2('21')).toBe(-973932308);
    expect(murmur2('foobar')).toBe(-790332482);
    expect(murmur2('a-little-bit-long-string')).toBe(-985981536);
    expect(murmur2('a-little-bit-longer-string')).toBe(-1486304829);
    expect(murmur2('lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8')).toBe(-58897971);
    expect(murmur2(Buffer.from([98, 99, 100]))).toBe(murmur2('bcd'));
  });

  it('keeps an explicit partition, and spreads keyless messages over partitions with a leader', () => {
    const ours = Murmur2Partitioner();
    expect(ours({ topic: 't', partitionMetadata: metadata(4), message: { key: 'k', value: 'v', partition: 2 } })).toBe(2);
    const seen = new Set<number>();
    for (let i = 0; i < 40; i++) seen.add(ours({ topic: 't', partitionMetadata: metadata(4, [1]), message: { value: 'v' } }));
    expect([...seen].sort()).toEqual([0, 2, 3]);
  });
});
