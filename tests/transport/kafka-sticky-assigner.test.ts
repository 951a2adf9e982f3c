import { AssignerProtocol, PartitionAssigners, type Cluster, type Logger } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { claimsOf, stickyAssigner, stickyAssignment, type ClaimingMember, type PartitionClaim, type TopicPartition } from '../../src/transport/kafka-sticky-assigner.ts';

const parts = (n: number, topic = 't'): TopicPartition[] => Array.from({ length: n }, (_, partition) => ({ topic, partition }));
const claim = (partitions: number[], sinceMs = 1, topic = 't'): PartitionClaim[] => partitions.map((partition) => ({ topic, partition, sinceMs }));
const numbers = (m: Map<string, TopicPartition[]>, id: string) => m.get(id)!.map((p) => p.partition).sort((a, b) => a - b);

describe('stickyAssignment', () => {
  it('deals balanced shares when nobody claims anything', () => {
    const a = stickyAssignment([{ memberId: 'a', claims: [] }, { memberId: 'b', claims: [] }, { memberId: 'c', claims: [] }], parts(5));
    expect([...a.values()].map((x) => x.length).sort()).toEqual([1, 2, 2]);
    expect([...a.values()].flat().map((p) => p.partition).sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('keeps each member on its partitions when it rejoins under an id that sorts the other way (round-robin swaps them all)', () => {
    // Before the crash: m1 held 0 and 2, m2 held 1 and 3. m1 rejoins as "z9", which now sorts last.
    const members: ClaimingMember[] = [{ memberId: 'z9', claims: claim([0, 2]) }, { memberId: 'm2', claims: claim([1, 3]) }];
    const a = stickyAssignment(members, parts(4));
    expect(numbers(a, 'z9')).toEqual([0, 2]);
    expect(numbers(a, 'm2')).toEqual([1, 3]);
  });

  it('gives a partition claimed twice to the member that held it last, and its share back to the other', () => {
    // x held 0 and 1 until it crashed (since 100); y took them over at 200 and holds 2 and 3 since 50.
    const members: ClaimingMember[] = [
      { memberId: 'x', claims: claim([0, 1], 100) },
      { memberId: 'y', claims: [...claim([0, 1], 200), ...claim([2, 3], 50)] },
    ];
    const a = stickyAssignment(members, parts(4));
    // y keeps the two it has held longest; 0 and 1 go back to x, which claimed them too.
    expect(numbers(a, 'y')).toEqual([2, 3]);
    expect(numbers(a, 'x')).toEqual([0, 1]);
  });

  it('moves only what a new member needs for its share', () => {
    const a = stickyAssignment([{ memberId: 'a', claims: [...claim([0, 1], 10), ...claim([2, 3], 20)] }, { memberId: 'b', claims: [] }], parts(4));
    expect(numbers(a, 'a')).toEqual([0, 1]);
    expect(numbers(a, 'b')).toEqual([2, 3]);
  });

  it('ignores claims on partitions that no longer exist and topics not subscribed', () => {
    const a = stickyAssignment([{ memberId: 'a', claims: [...claim([7]), ...claim([0], 1, 'other')] }], parts(2));
    expect(numbers(a, 'a')).toEqual([0, 1]);
  });

  it('always assigns every partition exactly once with shares differing by at most one (random claims)', () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    for (let round = 0; round < 300; round++) {
      const count = 1 + rand(12);
      const members: ClaimingMember[] = Array.from({ length: 1 + rand(5) }, (_, i) => ({
        memberId: `m${rand(1000)}-${i}`,
        claims: Array.from({ length: rand(count + 3) }, () => ({ topic: 't', partition: rand(count + 2), sinceMs: rand(50) })),
      }));
      const a = stickyAssignment(members, parts(count));
      const all = [...a.values()].flat().map((p) => p.partition).sort((x, y) => x - y);
      expect(all).toEqual(parts(count).map((p) => p.partition));
      const sizes = [...a.values()].map((x) => x.length);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    }
  });
});

describe('stickyAssigner (kafkajs protocol)', () => {
  const cluster = { findTopicPartitionMetadata: () => parts(4).map((p) => ({ partitionId: p.partition })) } as unknown as Cluster;
  const logger = {} as Logger;

  it('says what a member owns in its join and the leader reads it back', async () => {
    const x = stickyAssigner(() => claim([1, 3], 5))({ cluster, groupId: 'g', logger });
    const y = stickyAssigner(() => claim([0, 2], 5))({ cluster, groupId: 'g', logger });
    const members = [
      { memberId: 'a', memberMetadata: x.protocol({ topics: ['t'] }).metadata },
      { memberId: 'b', memberMetadata: y.protocol({ topics: ['t'] }).metadata },
    ];
    const result = await x.assign({ members, topics: ['t'] });
    const decoded = Object.fromEntries(result.map((r) => [r.memberId, AssignerProtocol.MemberAssignment.decode(r.memberAssignment)!.assignment['t']!.sort()]));
    expect(decoded).toEqual({ a: [1, 3], b: [0, 2] });
    // Round-robin, for contrast, deals by sorted id regardless of what each held.
    const rr = await PartitionAssigners.roundRobin({ cluster, groupId: 'g', logger }).assign({ members, topics: ['t'] });
    expect(AssignerProtocol.MemberAssignment.decode(rr.find((r) => r.memberId === 'a')!.memberAssignment)!.assignment['t']).toEqual([0, 2]);
  });

  it('reads no claims from metadata that is not its own', () => {
    expect(claimsOf(undefined)).toEqual([]);
    expect(claimsOf(Buffer.from('not json'))).toEqual([]);
    expect(claimsOf(Buffer.from(JSON.stringify({ v: 2, owned: [['t', 0, 1]] })))).toEqual([]);
    expect(claimsOf(Buffer.from(JSON.stringify({ v: 1, owned: [['t', 0, 1], ['t', 'x', 1], 5] })))).toEqual([{ topic: 't', partition: 0, sinceMs: 1 }]);
  });
});
