/**
 * The slices' bookkeeping: per service, its own flagged counts per metric × judge, and per dimension a
 * bounded set of slices (at most `maxSlices` values; a new value takes the place of one idle for
 * `idleMs`, else it counts as `other`), each with its flagged counts in snapshots of `stepMs` over
 * the baseline and the recent window, and its CUSUM state. Memory is fixed by the bounds, whatever
 * the traffic: ≈ 3.5 KB per slice × metric × judge at the defaults (15-minute steps over 27 hours).
 * @module
 */
import { FlagSeries, type FlagSeriesState } from '../metrics/flag-series.ts';
import type { Llr } from './statistic.ts';
import type { ReferenceKind, SliceDimension, SliceSettings } from './types.ts';

/** One slice × metric × judge: its counts and the CUSUM that tests them. */
export interface SliceEntry {
  metric: string;
  judge: string;
  series: FlagSeries;
  /** The CUSUM statistic (0 while untested). */
  cusum: number;
  /** The LLR of the last evaluation's reference; undefined = untested (the statistic does not move). */
  llr: Llr | undefined;
  /** Largest value the statistic may reach (2h): a drop that ended is resolved in bounded time. */
  cap: number;
  threshold: number;
  reference: ReferenceKind | null;
  referenceShare: number | null;
  referenceSamples: number;
  /**
   * Answers (and flagged ones) that arrived while the slice was untested for want of a reference (a
   * new release before its first evaluation): the statistic starts from their sum once it is tested.
   */
  pendingSamples: number;
  pendingFlagged: number;
  /** Answers and flagged answers since the statistic last left 0, and when that was. */
  runSamples: number;
  runFlagged: number;
  runSinceMs: number | null;
  firingSinceMs?: number;
  lastTrueMs?: number;
  /** The notice's figures when it started firing. */
  evidence?: string;
}

/** One value of one dimension of a service. */
export interface Slice {
  dimension: SliceDimension;
  value: string;
  firstSeenMs: number;
  lastSeenMs: number;
  entries: Map<string, SliceEntry>;
}

/** One service: its totals per metric × judge and its slices per dimension. */
export interface ServiceBook {
  service: string;
  firstSeenMs: number;
  totals: Map<string, FlagSeries>;
  slices: Map<SliceDimension, Map<string, Slice>>;
}

/** The saved form (embedded store). */
export interface BookState {
  services: Array<{
    service: string;
    firstSeenMs: number;
    totals: Array<{ key: string; state: FlagSeriesState }>;
    slices: Array<{ dimension: SliceDimension; value: string; firstSeenMs: number; lastSeenMs: number; entries: Array<{ metric: string; judge: string; state: FlagSeriesState }> }>;
  }>;
}

const SEP = '\u0000';

/** The key of a metric × judge. */
export function entryKey(metric: string, judge: string): string {
  return metric + SEP + judge;
}

export class SliceBook {
  readonly #s: SliceSettings;
  readonly #services = new Map<string, ServiceBook>();
  readonly #spanMs: number;
  /** Called with the dimension of an answer that found no place (counted as `other`). */
  readonly #onOther: (dimension: SliceDimension) => void;
  /** Called when a slice gives its place up (its exported series are removed). */
  readonly #onEvict: (service: string, slice: Slice) => void;

  constructor(settings: SliceSettings, hooks: { onOther?: (dimension: SliceDimension) => void; onEvict?: (service: string, slice: Slice) => void } = {}) {
    this.#s = settings;
    this.#spanMs = settings.baselineMs + settings.recentMs;
    this.#onOther = hooks.onOther ?? (() => undefined);
    this.#onEvict = hooks.onEvict ?? (() => undefined);
  }

  /** Every service. */
  services(): IterableIterator<ServiceBook> {
    return this.#services.values();
  }

  /** One service, when seen. */
  service(name: string): ServiceBook | undefined {
    return this.#services.get(name);
  }

  /** The service's book, created on first sight. */
  serviceBook(service: string, now: number): ServiceBook {
    let b = this.#services.get(service);
    if (!b) {
      b = { service, firstSeenMs: now, totals: new Map(), slices: new Map(this.#s.dimensions.map((d) => [d, new Map<string, Slice>()])) };
      this.#services.set(service, b);
    }
    return b;
  }

  /** The service's totals of a metric × judge. */
  totals(b: ServiceBook, key: string, now: number): FlagSeries {
    let t = b.totals.get(key);
    if (!t) {
      t = new FlagSeries(this.#spanMs, now, this.#s.stepMs);
      b.totals.set(key, t);
    }
    return t;
  }

  /** The slice of `value` in `dimension`, making room for it if a slice is idle; undefined = `other` (counted). */
  slice(b: ServiceBook, dimension: SliceDimension, value: string, now: number): Slice | undefined {
    const map = b.slices.get(dimension);
    if (!map) return undefined;
    let s = map.get(value);
    if (s) {
      s.lastSeenMs = now;
      return s;
    }
    if (map.size >= this.#s.maxSlices[dimension]) {
      let idlest: Slice | undefined;
      for (const c of map.values()) if (now - c.lastSeenMs >= this.#s.idleMs && ![...c.entries.values()].some((e) => e.firingSinceMs !== undefined) && (!idlest || c.lastSeenMs < idlest.lastSeenMs)) idlest = c;
      if (!idlest) {
        this.#onOther(dimension);
        return undefined;
      }
      map.delete(idlest.value);
      this.#onEvict(b.service, idlest);
    }
    s = { dimension, value, firstSeenMs: now, lastSeenMs: now, entries: new Map() };
    map.set(value, s);
    return s;
  }

  /** The slice's entry of a metric × judge, created on first sight. */
  entry(s: Slice, key: string, metric: string, judge: string, now: number): SliceEntry {
    let e = s.entries.get(key);
    if (!e) {
      e = { metric, judge, series: new FlagSeries(this.#spanMs, now, this.#s.stepMs), cusum: 0, llr: undefined, cap: Infinity, threshold: Infinity, reference: null, referenceShare: null, referenceSamples: 0, pendingSamples: 0, pendingFlagged: 0, runSamples: 0, runFlagged: 0, runSinceMs: null };
      s.entries.set(key, e);
    }
    return e;
  }

  /** The saved form. */
  state(): BookState {
    return {
      services: [...this.#services.values()].map((b) => ({
        service: b.service,
        firstSeenMs: b.firstSeenMs,
        totals: [...b.totals].map(([key, t]) => ({ key, state: t.state() })),
        slices: [...b.slices.values()].flatMap((m) => [...m.values()].map((s) => ({ dimension: s.dimension, value: s.value, firstSeenMs: s.firstSeenMs, lastSeenMs: s.lastSeenMs, entries: [...s.entries.values()].map((e) => ({ metric: e.metric, judge: e.judge, state: e.series.state() })) }))),
      })),
    };
  }

  /** Restores a saved form (series of another ring length — the windows changed — start afresh); returns the slices restored. */
  restore(state: BookState, now: number): number {
    let restored = 0;
    for (const sv of state.services ?? []) {
      const b = this.serviceBook(sv.service, now);
      b.firstSeenMs = Math.min(b.firstSeenMs, sv.firstSeenMs);
      for (const t of sv.totals) this.totals(b, t.key, now).restore(t.state);
      for (const sl of sv.slices) {
        const map = b.slices.get(sl.dimension);
        if (!map || map.size >= this.#s.maxSlices[sl.dimension]) continue;
        const s: Slice = { dimension: sl.dimension, value: sl.value, firstSeenMs: sl.firstSeenMs, lastSeenMs: sl.lastSeenMs, entries: new Map() };
        for (const e of sl.entries) this.entry(s, entryKey(e.metric, e.judge), e.metric, e.judge, now).series.restore(e.state);
        map.set(s.value, s);
        restored++;
      }
    }
    return restored;
  }
}
