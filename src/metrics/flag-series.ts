/**
 * One series' flagged counts, kept as running totals and a ring of snapshots of them per step (a minute
 * by default) — the in-process twin of a Prometheus counter and `increase()`: the counts over any span
 * of the ring are two snapshot lookups, and memory is fixed by the ring length, whatever the traffic.
 * @module
 */
/** Weighted counts over a span of time: what both evaluators read (PromQL from counters, in process from snapshots). */
export interface FlagCounts {
  /** Σw of judged answers. */
  weight: number;
  /** Σw of flagged answers (score ≤ the metric's threshold). */
  flagged: number;
  /** Σw². */
  weightSquares: number;
  /** Judged answers, unweighted. */
  samples: number;
}

/** The default resolution of the snapshots. */
const MINUTE_MS = 60_000;
/** Fields per snapshot: weight, flagged, weight², samples. */
const FIELDS = 4;

/** The saved form of a {@link FlagSeries} (embedded store). */
export interface FlagSeriesState {
  minute: number;
  totals: number[];
  snapshots: number[];
}

export class FlagSeries {
  readonly #slots: number;
  readonly #stepMs: number;
  readonly #totals = new Float64Array(FIELDS);
  /** Totals at the start of step m, at index (m mod slots) × FIELDS. */
  #snaps: Float64Array;
  /** The newest step seen; snapshots are valid for the `slots` steps ending here. */
  #minute: number;

  /**
   * @param spanMs the longest span that will be asked for (baseline + long window)
   * @param stepMs the resolution (default a minute)
   */
  constructor(spanMs: number, nowMs: number, stepMs: number = MINUTE_MS) {
    this.#stepMs = stepMs;
    this.#slots = Math.ceil(spanMs / stepMs) + 2;
    this.#snaps = new Float64Array(this.#slots * FIELDS);
    this.#minute = Math.floor(nowMs / stepMs);
  }

  /** Steps kept. */
  get slots(): number {
    return this.#slots;
  }

  /** The step `nowMs` falls in (the index `counts` takes). */
  stepOf(nowMs: number): number {
    return Math.floor(nowMs / this.#stepMs);
  }

  /**
   * Adds one judged answer at `nowMs` (an answer older than the newest step counts in it); `flagged` is
   * whether it is flagged, or the probability that it is (a calibrated P(bad)).
   */
  add(nowMs: number, weight: number, flagged: boolean | number): void {
    this.#advance(nowMs);
    const t = this.#totals;
    t[0]! += weight;
    t[1]! += weight * (flagged === true ? 1 : flagged === false ? 0 : flagged);
    t[2]! += weight * weight;
    t[3]! += 1;
  }

  /** The counts from the start of step `from` to the start of step `to` (past the newest step = up to now). */
  counts(from: number, to: number): FlagCounts {
    const a = this.#at(from);
    const b = this.#at(to);
    return { weight: b[0]! - a[0]!, flagged: b[1]! - a[1]!, weightSquares: b[2]! - a[2]!, samples: b[3]! - a[3]! };
  }

  /** Brings the snapshots forward to `nowMs` without an answer (so an idle series still ages). */
  advance(nowMs: number): void {
    this.#advance(nowMs);
  }

  /** The saved form. */
  state(): FlagSeriesState {
    return { minute: this.#minute, totals: [...this.#totals], snapshots: [...this.#snaps] };
  }

  /** Restores a saved form of the same ring length; false (nothing changed) otherwise. */
  restore(state: FlagSeriesState): boolean {
    if (state.snapshots.length !== this.#slots * FIELDS || state.totals.length !== FIELDS || !Number.isFinite(state.minute)) return false;
    this.#snaps = Float64Array.from(state.snapshots);
    this.#totals.set(state.totals);
    this.#minute = state.minute;
    return true;
  }

  /** Totals at the start of step `m` (clipped to what the ring holds). */
  #at(m: number): Float64Array {
    if (m > this.#minute) return this.#totals;
    const oldest = this.#minute - this.#slots + 1;
    const k = Math.max(m, oldest);
    const i = (((k % this.#slots) + this.#slots) % this.#slots) * FIELDS;
    return this.#snaps.subarray(i, i + FIELDS);
  }

  #advance(nowMs: number): void {
    const m = Math.floor(nowMs / this.#stepMs);
    if (m <= this.#minute) return;
    // Steps with no answer start with the same totals; beyond a whole ring every slot does.
    const from = Math.max(this.#minute + 1, m - this.#slots + 1);
    for (let k = from; k <= m; k++) this.#snaps.set(this.#totals, (k % this.#slots) * FIELDS);
    this.#minute = m;
  }
}
