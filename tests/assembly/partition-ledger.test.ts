/**
 * The assembler's per-partition bookkeeping: commit offsets never pass a buffered trace's first
 * record, each partition's buffered traces are bounded, and a re-read after a rebalance skips what
 * was already handled while handing the buffered traces over.
 */
import { describe, expect, it } from 'vitest';
import { PartitionLedger } from '../../src/assembly/partition-ledger.ts';

function setup(maxTracesPerPartition = 10) {
  const buffered = new Set<string>();
  const ledger = new PartitionLedger({ maxTracesPerPartition, isBuffered: (t) => buffered.has(t) });
  /** Reads `traceId` at `offset`; a taken trace counts as buffered until `assemble`. */
  const read = (partition: number, offset: number, traceId: string | undefined) => {
    const a = ledger.admit(partition, BigInt(offset), traceId);
    if (a === 'take' && traceId !== undefined) buffered.add(traceId);
    return a;
  };
  return { ledger, buffered, read, assemble: (t: string) => buffered.delete(t) };
}

describe('PartitionLedger', () => {
  it('commits up to the first record of the oldest buffered trace, per partition, and only forward', () => {
    const { ledger, read, assemble } = setup();
    read(0, 0, 'a');
    read(0, 1, 'b');
    read(0, 2, 'a');
    read(1, 5, 'c');
    expect(ledger.commitable()).toEqual([
      { partition: 0, offset: 0n },
      { partition: 1, offset: 5n },
    ]);
    ledger.committed(ledger.commitable());
    expect(ledger.commitable()).toEqual([]);
    assemble('a');
    expect(ledger.commitable()).toEqual([{ partition: 0, offset: 1n }]);
    assemble('b');
    assemble('c');
    read(0, 3, undefined); // a bad record: taken (DLQ), holds nothing back
    expect(ledger.commitable()).toEqual([
      { partition: 0, offset: 4n },
      { partition: 1, offset: 6n },
    ]);
  });

  it('bounds the traces buffered per partition; assembled traces make room again; other partitions are unaffected', () => {
    const { ledger, read, assemble } = setup(2);
    expect([read(0, 0, 'a'), read(0, 1, 'b'), read(0, 2, 'c'), read(0, 3, 'a')]).toEqual(['take', 'take', 'full', 'take']);
    expect(read(1, 0, 'x')).toBe('take');
    assemble('a');
    expect(read(0, 4, 'd')).toBe('take');
    // The refused trace's record is behind the commit point: it is not read again (dropped, counted by the caller).
    assemble('b');
    assemble('d');
    expect(ledger.commitable()).toContainEqual({ partition: 0, offset: 5n });
  });

  it('a rewind hands over the buffered traces and skips re-read records of traces already handled', () => {
    const { ledger, buffered, read, assemble } = setup();
    read(0, 0, 'done');
    read(0, 1, 'half');
    read(0, 2, undefined);
    read(0, 3, 'done');
    assemble('done');
    expect(ledger.rewind()).toEqual(['half']);
    expect(ledger.rewind()).toEqual([]); // idempotent
    buffered.clear(); // capture let 'half' go
    expect(ledger.commitable()).toEqual([]); // nothing read since: nothing to commit
    // Re-read from the committed offset (0): only the handed-over trace is taken again.
    expect([read(0, 0, 'done'), read(0, 1, 'half'), read(0, 2, undefined), read(0, 3, 'done'), read(0, 4, 'new'), read(0, 5, 'done')]).toEqual(['skip', 'take', 'skip', 'skip', 'take', 'take']);
    expect(ledger.commitable()).toEqual([{ partition: 0, offset: 1n }]);
  });

  it('retain forgets lost partitions and returns them', () => {
    const { ledger, read } = setup();
    read(0, 0, 'a');
    read(1, 0, 'b');
    read(2, 0, 'c');
    expect(ledger.retain(new Set([1]))).toEqual([0, 2]);
    expect(ledger.commitable()).toEqual([{ partition: 1, offset: 0n }]);
  });
});
