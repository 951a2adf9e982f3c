/**
 * Keeps a label's cardinality bounded: the first `max` distinct values (or an allow-list) pass,
 * everything else becomes `other`. Never put query text or ids through this — they are not labels.
 * @module
 */

/** Label value used for everything outside the bound. */
export const OTHER = 'other';

export class LabelBound {
  readonly #allowed: ReadonlySet<string> | undefined;
  readonly #seen = new Set<string>();
  readonly #max: number;

  /**
   * @param max distinct values admitted on first sight when no allow-list is given
   * @param allowList when non-empty, exactly these values pass
   */
  constructor(max: number, allowList: readonly string[] = []) {
    this.#max = max;
    this.#allowed = allowList.length > 0 ? new Set(allowList) : undefined;
  }

  /** The label value to use for `value`. */
  get(value: string | undefined): string {
    if (value === undefined || value === '') return OTHER;
    if (this.#allowed) return this.#allowed.has(value) ? value : OTHER;
    if (this.#seen.has(value)) return value;
    if (this.#seen.size >= this.#max) return OTHER;
    this.#seen.add(value);
    return value;
  }
}
