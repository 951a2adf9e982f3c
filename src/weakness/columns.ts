/**
 * Scored answers held column-wise in a fixed ring: a time, a weight, a judge code, one code per
 * dimension and one score column per metric (typed arrays), plus the triplet ids. At the default
 * 50,000 answers and 7 metrics this is ≈ 6 MB whatever the texts — an object per answer cost ≈ 600
 * bytes and a scan over them blocked the event loop for half a second at 10× overload — and the
 * cells are accumulated in one pass per metric over integer codes ({@link AnswerColumns.cells}).
 * @module
 */
import { add, cellsOf, emptyMoments, type Moments } from './breakdown.ts';
import { MARGINAL_DIMENSIONS, type MetricCell, type ScoredAnswer, type WeaknessCellsOptions } from './cells.ts';

/** Distinct values kept per dimension; later ones share the code of {@link OVERFLOW}. */
const MAX_VALUES = 4096;
/** The value standing for every value past {@link MAX_VALUES} (counted in `overflowed`). */
export const OVERFLOW = '(other values)';

/** A value ↔ code dictionary; code 0 is "absent". */
class Dictionary {
  readonly values: string[] = [''];
  readonly #codes = new Map<string, number>();
  overflowed = 0;

  code(value: string | undefined): number {
    if (value === undefined) return 0;
    const known = this.#codes.get(value);
    if (known !== undefined) return known;
    if (this.values.length > MAX_VALUES) {
      this.overflowed++;
      value = OVERFLOW;
      const overflow = this.#codes.get(value);
      if (overflow !== undefined) return overflow;
    }
    this.values.push(value);
    this.#codes.set(value, this.values.length - 1);
    return this.values.length - 1;
  }
}

/** A fixed-capacity ring of scored answers, column-wise. */
export class AnswerColumns {
  readonly capacity: number;
  readonly #at: Float64Array;
  readonly #weight: Float64Array;
  readonly #judge: Uint16Array;
  readonly #dims: Uint16Array[];
  readonly #scores = new Map<string, Float64Array>();
  readonly #ids: string[];
  readonly #judges = new Dictionary();
  readonly #values = MARGINAL_DIMENSIONS.map(() => new Dictionary());
  #size = 0;
  #next = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
    this.#at = new Float64Array(capacity);
    this.#weight = new Float64Array(capacity);
    this.#judge = new Uint16Array(capacity);
    this.#dims = MARGINAL_DIMENSIONS.map(() => new Uint16Array(capacity));
    this.#ids = new Array<string>(capacity);
  }

  /** Answers held. */
  get size(): number {
    return this.#size;
  }

  /** Adds an answer at `atMs`, replacing the oldest when full; returns the replaced answer's time (undefined when none was). O(metrics). */
  add(answer: ScoredAnswer, atMs: number): number | undefined {
    const i = this.#next;
    const replaced = this.#size === this.capacity ? this.#at[i] : undefined;
    this.#next = (i + 1) % this.capacity;
    if (this.#size < this.capacity) this.#size++;
    this.#at[i] = atMs;
    this.#weight[i] = answer.weight;
    this.#judge[i] = this.#judges.code(answer.judge);
    this.#ids[i] = answer.tripletId;
    MARGINAL_DIMENSIONS.forEach((d, k) => (this.#dims[k]![i] = this.#values[k]!.code(answer.dims[d])));
    for (const col of this.#scores.values()) col[i] = NaN;
    for (const metric in answer.scores) {
      const v = answer.scores[metric];
      if (v === undefined) continue;
      let col = this.#scores.get(metric);
      if (!col) this.#scores.set(metric, (col = new Float64Array(this.capacity).fill(NaN)));
      col[i] = v;
    }
    return replaced;
  }

  /** Row indices of the answers at or after `fromMs`, oldest first. */
  #rows(fromMs: number): Int32Array {
    const out = new Int32Array(this.#size);
    let n = 0;
    const start = this.#size === this.capacity ? this.#next : 0;
    for (let k = 0; k < this.#size; k++) {
      const i = (start + k) % this.capacity;
      if (this.#at[i]! >= fromMs) out[n++] = i;
    }
    return out.subarray(0, n);
  }

  /** The answers at or after `fromMs` as objects, oldest first (for pages and rare diagnoses, not per scrape). */
  answers(fromMs: number): ScoredAnswer[] {
    return Array.from(this.#rows(fromMs), (i) => {
      const scores: Record<string, number> = {};
      for (const [metric, col] of this.#scores) if (!Number.isNaN(col[i]!)) scores[metric] = col[i]!;
      const dims: Record<string, string> = {};
      MARGINAL_DIMENSIONS.forEach((d, k) => {
        const code = this.#dims[k]![i]!;
        if (code !== 0) dims[d] = this.#values[k]!.values[code]!;
      });
      return { tripletId: this.#ids[i]!, judge: this.#judges.values[this.#judge[i]!]!, weight: this.#weight[i]!, scores, dims };
    });
  }

  /** Values past the per-dimension dictionary bound, counted. */
  get overflowed(): number {
    return this.#values.reduce((a, d) => a + d.overflowed, 0);
  }

  /** The weakness cells of the answers at or after `fromMs`: same cells as {@link weaknessCells} over {@link answers}. */
  cells(fromMs: number, options: WeaknessCellsOptions = {}): MetricCell[] {
    const rows = this.#rows(fromMs);
    const minCount = options.minCount || 20;
    const fdr = options.fdr || 0.05;
    const bivariate = new Set(options.bivariateMetrics ?? []);
    const topic = MARGINAL_DIMENSIONS.indexOf('topic');
    const queryType = MARGINAL_DIMENSIONS.indexOf('queryType');
    const groups: Array<{ metric: string; judge: number }> = [];
    for (const [metric, col] of this.#scores) {
      const seen = new Uint8Array(this.#judges.values.length);
      for (const i of rows) if (!Number.isNaN(col[i]!)) seen[this.#judge[i]!] = 1;
      seen.forEach((on, judge) => on && groups.push({ metric, judge }));
    }
    const judgeName = (code: number) => this.#judges.values[code]!;
    groups.sort((a, b) => a.metric.localeCompare(b.metric) || judgeName(a.judge).localeCompare(judgeName(b.judge)));
    const cells: MetricCell[] = [];
    for (const g of groups) {
      const col = this.#scores.get(g.metric)!;
      const by: number[][] = [...MARGINAL_DIMENSIONS.map((_, k) => [k]), ...(bivariate.has(g.metric) ? [[topic, queryType]] : [])];
      for (const dims of by) {
        const { total, moments } = this.#accumulate(rows, g.judge, col, dims);
        const named = moments.map(({ key, m }) => ({ dims: Object.fromEntries(dims.map((k, j) => [MARGINAL_DIMENSIONS[k]!, this.#values[k]!.values[key[j]!]!])), m, key }));
        for (const c of cellsOf(named, total, minCount, fdr)) {
          const cell: MetricCell = { metric: g.metric, judge: judgeName(g.judge), ...c };
          if (c.flagged) cell.worst = this.#worst(rows, g.judge, col, dims, dims.map((k) => this.#values[k]!.code(c.dimensions[MARGINAL_DIMENSIONS[k]!])));
          cells.push(cell);
        }
      }
    }
    return cells;
  }

  /** Moments per cell of `dims` (codes combined into one index), and of every answer with all of `dims`. */
  #accumulate(rows: Int32Array, judge: number, col: Float64Array, dims: readonly number[]): { total: Moments; moments: Array<{ key: number[]; m: Moments }> } {
    const widths = dims.map((k) => this.#values[k]!.values.length);
    const size = widths.reduce((a, w) => a * w, 1);
    const codes = dims.map((k) => this.#dims[k]!);
    // Typed accumulators indexed by the combined code: no object or Map lookup per answer.
    const acc = new Float64Array(size * 5);
    const total = emptyMoments();
    for (const i of rows) {
      const w = this.#weight[i]!;
      const v = col[i]!;
      if (!(w > 0) || this.#judge[i] !== judge || Number.isNaN(v)) continue;
      let key = 0;
      let absent = false;
      for (let j = 0; j < codes.length; j++) {
        const code = codes[j]![i]!;
        if (code === 0) absent = true;
        key = key * widths[j]! + code;
      }
      if (absent) continue;
      add(total, w, v);
      const o = key * 5;
      acc[o] += w;
      acc[o + 1] += w * w;
      acc[o + 2] += w * v;
      acc[o + 3] += w * v * v;
      acc[o + 4] += 1;
    }
    const moments: Array<{ key: number[]; m: Moments }> = [];
    for (let key = 0; key < size; key++) {
      const o = key * 5;
      if (acc[o + 4] === 0) continue;
      const parts: number[] = [];
      let rest = key;
      for (let j = widths.length - 1; j >= 0; j--) {
        parts.unshift(rest % widths[j]!);
        rest = Math.floor(rest / widths[j]!);
      }
      moments.push({ key: parts, m: { w: acc[o]!, w2: acc[o + 1]!, sum: acc[o + 2]!, sumSq: acc[o + 3]!, n: acc[o + 4]! } });
    }
    return { total, moments };
  }

  /** Ids of the (at most 3) lowest-scoring answers of a cell. */
  #worst(rows: Int32Array, judge: number, col: Float64Array, dims: readonly number[], codes: readonly number[]): string[] {
    return [...rows]
      .filter((i) => this.#judge[i] === judge && !Number.isNaN(col[i]!) && dims.every((k, j) => this.#dims[k]![i] === codes[j]))
      .sort((a, b) => col[a]! - col[b]!)
      .slice(0, 3)
      .map((i) => this.#ids[i]!);
  }
}

/** Every cell of `answers`, grouped per metric and judge (sorted by metric; flagged cells first within each breakdown). */
export function weaknessCells(answers: readonly ScoredAnswer[], options: WeaknessCellsOptions = {}): MetricCell[] {
  const columns = new AnswerColumns(Math.max(1, answers.length));
  for (const a of answers) columns.add(a, 0);
  return columns.cells(0, options);
}
