/**
 * kafkajs' default partitioner (Java-compatible murmur2 of the key), with the hash in 32-bit
 * integer arithmetic: kafkajs computes it on emulated 64-bit longs, ~3 µs per message, as much as
 * encoding the record. Keys map to the same partitions as with kafkajs and the Java client.
 * @module
 */
import { randomInt } from 'node:crypto';
import type { ICustomPartitioner, PartitionerArgs } from 'kafkajs';

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

/** Kafka's murmur2 (`org.apache.kafka.common.utils.Utils.murmur2`) of `key`'s UTF-8 bytes, as a signed 32-bit integer. */
export function murmur2(key: string | Buffer): number {
  const data = typeof key === 'string' ? Buffer.from(key) : key;
  const length = data.length;
  let h = SEED ^ length;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  // The last 1–3 bytes (Java's switch falls through from the highest).
  const rest = length & 3;
  if (rest === 3) h ^= data[whole + 2]! << 16;
  if (rest >= 2) h ^= data[whole + 1]! << 8;
  if (rest >= 1) h = Math.imul(h ^ data[whole]!, M);
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

const toPositive = (x: number) => x & 0x7fffffff;

/**
 * Partitions as kafkajs' `Partitioners.DefaultPartitioner` does: an explicit partition wins; a key
 * picks `murmur2(key) % partitions`; no key goes round-robin over the partitions with a leader.
 */
export const Murmur2Partitioner: ICustomPartitioner = () => {
  const counters = new Map<string, number>();
  return ({ topic, partitionMetadata, message }: PartitionerArgs): number => {
    if (message.partition !== null && message.partition !== undefined) return message.partition;
    if (message.key !== null && message.key !== undefined) return toPositive(murmur2(message.key)) % partitionMetadata.length;
    const available = partitionMetadata.filter((p) => p.leader >= 0);
    const counter = (counters.get(topic) ?? randomInt(2 ** 31)) + 1;
    counters.set(topic, counter);
    return available.length > 0 ? available[toPositive(counter) % available.length]!.partitionId : toPositive(counter) % partitionMetadata.length;
  };
};
