/**
 * The assembler's per-partition bookkeeping, apart from Kafka: which traces each partition has
 * buffered (bounded: `maxTracesPerPartition`, so one hot partition cannot take the whole capture
 * buffer from the others), how far it may commit (never past the first record of a trace still
 * buffered), and what to skip when a partition is re-read from its committed offset after a
 * rebalance or a crash.
 * @module
 */

/** What to do with one record read from a partition. */
export type Admission =
  /** Assemble it (or, for a bad record, send it to the DLQ). */
  | 'take'
  /** Read and handled before a rebalance (assembled, or sent to the DLQ): skip it. */
  | 'skip'
  /** Its partition holds `maxTracesPerPartition` buffered traces already and this is a new one: drop it, counted. */
  | 'full';

interface PartitionState {
  /** Trace id → offset of its first record not yet covered by a commit. */
  pending: Map<string, bigint>;
  /** Offset after the last record read. */
  next: bigint | undefined;
  committed: bigint | undefined;
  /** New traces refused since the partition was last pruned while full. */
  refused: number;
  /** After a rebalance: records before this offset were read before it, and are skipped unless their trace is in `handedOver`. */
  rereadUntil?: bigint;
  /** Traces handed over at the rebalance, to be assembled again from the re-read. */
  handedOver?: Set<string>;
}

/** Options of {@link PartitionLedger}. */
export interface PartitionLedgerOptions {
  /** Traces one partition may hold buffered at once. */
  maxTracesPerPartition: number;
  /** True while capture still buffers spans of the trace. */
  isBuffered: (traceId: string) => boolean;
}

/** Per-partition trace accounting of one assembler. */
export class PartitionLedger {
  readonly #o: PartitionLedgerOptions;
  readonly #partitions = new Map<number, PartitionState>();

  constructor(options: PartitionLedgerOptions) {
    this.#o = options;
  }

  #state(partition: number): PartitionState {
    let s = this.#partitions.get(partition);
    if (!s) this.#partitions.set(partition, (s = { pending: new Map(), next: undefined, committed: undefined, refused: 0 }));
    return s;
  }

  /**
   * Decides about the record at `offset` of `partition` (trace id `undefined`: a bad record) and
   * marks it read. A full partition is pruned of assembled traces before it refuses a new one.
   */
  admit(partition: number, offset: bigint, traceId: string | undefined): Admission {
    const state = this.#state(partition);
    state.next = offset + 1n;
    if (state.rereadUntil !== undefined && offset >= state.rereadUntil) state.rereadUntil = state.handedOver = undefined;
    if (state.rereadUntil !== undefined && (traceId === undefined || !state.handedOver?.has(traceId))) return 'skip';
    if (traceId === undefined || state.pending.has(traceId)) return 'take';
    const max = this.#o.maxTracesPerPartition;
    if (state.pending.size >= max) {
      // A prune walks every pending trace: while the partition stays full, once per max/8 refusals, not per record.
      if (state.refused % Math.ceil(max / 8) === 0) this.#prune(state);
      if (state.pending.size >= max) {
        state.refused++;
        return 'full';
      }
      state.refused = 0;
    }
    state.pending.set(traceId, offset);
    return 'take';
  }

  /** Offset after the last record read of `partition`, for the lag. */
  next(partition: number): bigint | undefined {
    return this.#partitions.get(partition)?.next;
  }

  #prune(state: PartitionState): void {
    for (const traceId of state.pending.keys()) if (!this.#o.isBuffered(traceId)) state.pending.delete(traceId);
  }

  /** Per partition, the offset it may commit now (before the first record of its oldest buffered trace), where that moves it forward. */
  commitable(): Array<{ partition: number; offset: bigint }> {
    const offsets: Array<{ partition: number; offset: bigint }> = [];
    for (const [partition, state] of this.#partitions) {
      this.#prune(state);
      let safe = state.next;
      for (const first of state.pending.values()) if (safe === undefined || first < safe) safe = first;
      if (safe !== undefined && (state.committed === undefined || safe > state.committed)) offsets.push({ partition, offset: safe });
    }
    return offsets;
  }

  /** Records a successful commit. */
  committed(offsets: ReadonlyArray<{ partition: number; offset: bigint }>): void {
    for (const { partition, offset } of offsets) {
      const state = this.#partitions.get(partition);
      if (state) state.committed = offset;
    }
  }

  /**
   * Every partition is about to be re-read from its committed offset: returns the traces still
   * buffered (to be handed over: assembled from the re-read, here or by the next owner) and
   * remembers how far each partition was read, so that `admit` skips re-read records of traces
   * already handled. Idempotent.
   */
  rewind(): string[] {
    const handOver: string[] = [];
    for (const state of this.#partitions.values()) {
      for (const traceId of state.pending.keys()) {
        if (!this.#o.isBuffered(traceId)) continue;
        handOver.push(traceId);
        (state.handedOver ??= new Set()).add(traceId);
      }
      state.pending.clear();
      if (state.next !== undefined && (state.rereadUntil === undefined || state.next > state.rereadUntil)) state.rereadUntil = state.next;
      state.next = undefined;
    }
    return handOver;
  }

  /** Forgets partitions outside `owned` (another member's now); returns them. */
  retain(owned: ReadonlySet<number>): number[] {
    const lost = [...this.#partitions.keys()].filter((p) => !owned.has(p));
    for (const p of lost) this.#partitions.delete(p);
    return lost;
  }
}
