/**
 * Slice alerts and the live release gate (docs/alerts.md, "Drops inside a slice"): a sink of the
 * scorer that keeps, per service, the flagged counts of each release, route and generation model
 * (bounded, `book.ts`), runs a Bernoulli CUSUM per slice × metric × judge against the slice's
 * reference (`reference.ts`), pages when it crosses the threshold that holds the service's false-page
 * budget, and compares each live release with the service's baseline release (`gate.ts`). One
 * instance sees every score record: `ragwatch start` in process, the `ragwatch slices` role in split
 * mode (never per scorer replica).
 * @module
 */
import { Counter, Gauge } from 'prom-client';
import { evaluateEvery, type FlagMonitorOptions } from '../metrics/flag-rules.ts';
import type { AlertNotice } from '../metrics/notifier.ts';
import type { RecordSink } from '../scorer/record-sinks.ts';
import type { SampledTriplet, ScoreRecord } from '../triplet.ts';
import { SliceBook, entryKey, type BookState, type Slice, type SliceEntry } from './book.ts';
import { serviceReleases } from './gate.ts';
import { sliceNotice } from './notice.ts';
import { answersPer30Days, referenceOf, shareOfService } from './reference.ts';
import { alternativeShare, bernoulliLlr, cusumStep, cusumThreshold } from './statistic.ts';
import type { ReleaseSettings, ServiceReleases, SliceDimension, SliceRule, SliceSettings, SliceStatus } from './types.ts';

/** Where the counts are saved (the review store's named models). */
export interface SliceStateStore {
  saveModel(name: string, body: unknown): void;
  model<T>(name: string): T | undefined;
}

/** Options of {@link SliceMonitor}; `rules`, `settings` and `releases` are required. */
export interface SliceMonitorOptions extends FlagMonitorOptions {
  rules: readonly SliceRule[];
  settings: SliceSettings;
  releases: ReleaseSettings;
  store?: SliceStateStore;
}

const STATE_MODEL = 'slice-alerts';
const LABELS = ['metric', 'judge', 'service', 'dimension', 'slice'] as const;

export class SliceMonitor implements RecordSink {
  readonly #o: SliceMonitorOptions;
  readonly #s: SliceSettings;
  readonly #book: SliceBook;
  readonly #now: () => number;
  readonly #rules: ReadonlyMap<string, SliceRule>;
  readonly #answers: Counter<(typeof LABELS)[number]> | undefined;
  readonly #flagged: Counter<(typeof LABELS)[number]> | undefined;
  readonly #active: Gauge<(typeof LABELS)[number]> | undefined;
  readonly #verdict: Gauge<'service' | 'release' | 'baseline'> | undefined;
  #releases: ServiceReleases[] = [];
  #timer: NodeJS.Timeout | undefined;
  #lastSaveMs = 0;
  #shutdown: Promise<void> | undefined;

  constructor(options: SliceMonitorOptions) {
    this.#o = options;
    this.#s = options.settings;
    this.#now = options.now ?? Date.now;
    this.#rules = new Map(options.rules.map((r) => [r.metric, r]));
    const registers = options.registry ? [options.registry] : [];
    let other: Counter<'dimension'> | undefined;
    if (registers.length > 0) {
      this.#answers = new Counter({ name: 'ragwatch_slice_answers_total', help: 'Judged answers of a slice (a release, route or model of a service; the top-K per dimension, alerts.slices), by metric and judge.', labelNames: LABELS, registers });
      this.#flagged = new Counter({ name: 'ragwatch_slice_flagged_total', help: "Answers of a slice at or below the metric's threshold (or their calibrated P(bad)).", labelNames: LABELS, registers });
      this.#active = new Gauge({ name: 'ragwatch_slice_alert_active', help: "Slice alerts in process: 1 while the slice's CUSUM is above the threshold that holds the service's false-page budget (docs/alerts.md).", labelNames: LABELS, registers });
      this.#verdict = new Gauge({ name: 'ragwatch_release_verdict', help: 'Release gate: the candidate release against the service baseline release over the same period — 1 no_worse, 0 inconclusive, -1 worse (docs/deploy.md, Argo Rollouts / Flagger).', labelNames: ['service', 'release', 'baseline'], registers });
      other = new Counter({ name: 'ragwatch_slices_other_total', help: 'Answers whose release, route or model found no place among the tracked slices (counted as other).', labelNames: ['dimension'], registers });
    }
    this.#book = new SliceBook(this.#s, {
      onOther: (dimension) => other?.inc({ dimension }),
      onEvict: (service, slice) => this.#forget(service, slice),
    });
    this.#restore();
  }

  /** Adds one production answer to its service and slices; moves their CUSUMs. Never throws. */
  onRecord(record: ScoreRecord, triplet?: SampledTriplet): void {
    if (record.origin === 'probe' || this.#rules.size === 0) return;
    const now = this.#now();
    const service = this.#o.serviceOf?.(record) ?? record.service;
    const judge = record.judge.kind;
    const b = this.#book.serviceBook(service, now);
    const values: Record<SliceDimension, string | undefined> = { release: record.release ?? triplet?.release, route: record.route ?? triplet?.route, model: record.model ?? triplet?.model };
    const slices: Slice[] = [];
    for (const d of this.#s.dimensions) {
      const v = values[d];
      const s = v === undefined || v === '' ? undefined : this.#book.slice(b, d, v, now);
      if (s) slices.push(s);
    }
    for (const [metric, score] of Object.entries(record.scores)) {
      const rule = this.#rules.get(metric);
      if (!rule || score === undefined || !Number.isFinite(score)) continue;
      const x = rule.on === 'calibrated' ? this.#flagOfCalibrated(metric, judge, score) : score <= rule.cut ? 1 : 0;
      if (x === undefined) continue;
      const key = entryKey(metric, judge);
      this.#book.totals(b, key, now).add(now, 1, x);
      for (const s of slices) {
        const e = this.#book.entry(s, key, metric, judge, now);
        e.series.add(now, 1, x);
        if (e.llr) this.#step(e, x, now);
        else {
          e.pendingSamples += 1;
          e.pendingFlagged += x;
        }
        const labels = { metric, judge, service, dimension: s.dimension, slice: s.value };
        this.#answers?.inc(labels);
        if (x > 0) this.#flagged?.inc(labels, x);
      }
    }
  }

  /** Tests every slice now; updates the gauges and the release verdicts, notifies changes, saves when due. Returns the firing slices. */
  evaluate(): SliceStatus[] {
    const now = this.#now();
    const notify = this.#o.notifier?.enabled === true;
    const all: AlertNotice[] = [];
    const changed: AlertNotice[] = [];
    const firing: SliceStatus[] = [];
    const releases: ServiceReleases[] = [];
    for (const b of this.#book.services()) {
      // Per tested (dimension, metric × judge): the share of the service's answers its tested slices hold.
      const tested = new Map<string, number>();
      const entries: Array<{ slice: Slice; e: SliceEntry; pair: string }> = [];
      for (const map of b.slices.values()) {
        for (const slice of map.values()) {
          for (const [key, e] of slice.entries) {
            const totals = b.totals.get(key)!;
            e.series.advance(now);
            totals.advance(now);
            const { share, budgetShare } = shareOfService(slice, e, totals, now, this.#s);
            const ref = share > this.#s.maxShare ? undefined : referenceOf(slice, e, totals, now, this.#s);
            e.reference = ref?.kind ?? null;
            e.referenceShare = ref?.share ?? null;
            e.referenceSamples = ref?.samples ?? 0;
            const wasTested = e.llr !== undefined;
            e.llr = ref ? bernoulliLlr(ref.share, alternativeShare(ref.share, this.#s.shift, this.#s.minRatio)) : undefined;
            const pair = `${slice.dimension}\u0000${key}`;
            if (!ref) {
              this.#resetRun(e);
              // A dominant slice's answers are the service's; a new slice's wait for its reference.
              if (share > this.#s.maxShare) e.pendingSamples = e.pendingFlagged = 0;
            } else {
              tested.set(pair, (tested.get(pair) ?? 0) + budgetShare);
              if (!wasTested) this.#startFromPending(e, now);
            }
            entries.push({ slice, e, pair });
          }
        }
      }
      // The budget is the service's, split evenly over its tested (dimension, metric) pairs; a pair's false
      // alarms come only from the answers of its tested slices (a dominant release is not tested).
      const perPeriod = Math.max(...[...b.totals.values()].map((t) => answersPer30Days(t, b.firstSeenMs, now, this.#s)), 0);
      for (const { slice, e, pair } of entries) {
        const h = cusumThreshold(perPeriod * (tested.get(pair) ?? 1), tested.size, this.#s.falsePagesPer30Days);
        e.threshold = h;
        e.cap = 1.5 * h;
        e.cusum = Math.min(e.cusum, e.cap);
        const labels = { metric: e.metric, judge: e.judge, service: b.service, dimension: slice.dimension, slice: slice.value };
        const wasFiring = e.firingSinceMs !== undefined;
        const over = e.llr !== undefined && e.cusum >= h;
        if (over) e.lastTrueMs = now;
        const idle = now - slice.lastSeenMs >= this.#s.idleMs;
        const keep = !idle && e.lastTrueMs !== undefined && now - e.lastTrueMs < this.#s.keepFiringForMs;
        if (over || (wasFiring && keep)) {
          if (!wasFiring) {
            e.firingSinceMs = now;
            if (notify) changed.push(sliceNotice(b.service, slice, e, 'firing', now, this.#o));
          }
          if (notify) all.push(sliceNotice(b.service, slice, e, 'firing', now, this.#o));
          firing.push(statusOf(b.service, slice, e));
        } else if (wasFiring) {
          if (notify) {
            const n = sliceNotice(b.service, slice, e, 'resolved', now, this.#o);
            changed.push(n);
            all.push(n);
          }
          delete e.firingSinceMs;
        }
        if (e.llr !== undefined || wasFiring) this.#active?.set(labels, e.firingSinceMs !== undefined ? 1 : 0);
      }
      const r = serviceReleases(b, now, this.#o.releases, this.#s.stepMs);
      if (r) releases.push(r);
    }
    this.#releases = releases;
    this.#verdict?.reset();
    for (const r of releases) for (const rel of r.releases) if (rel.verdict) this.#verdict?.set({ service: r.service, release: rel.release, baseline: r.baseline }, rel.verdict === 'worse' ? -1 : rel.verdict === 'no_worse' ? 1 : 0);
    if (notify) this.#o.notifier!.send(all, changed);
    if (now - this.#lastSaveMs >= (this.#o.saveIntervalMs ?? 300_000)) this.save();
    return firing;
  }

  /** Every slice × metric × judge: untested, ok or firing, with the last evaluation's figures. */
  status(): SliceStatus[] {
    const out: SliceStatus[] = [];
    for (const b of this.#book.services()) for (const map of b.slices.values()) for (const s of map.values()) for (const e of s.entries.values()) out.push(statusOf(b.service, s, e));
    return out;
  }

  /** The live releases of every service with their verdicts, as of the last evaluation. */
  releases(): ServiceReleases[] {
    return this.#releases;
  }

  /** Starts the periodic evaluation (unref'd). Idempotent. */
  start(): void {
    if (this.#timer) return;
    this.#timer = evaluateEvery(() => this.evaluate(), this.#o, 'slice alert evaluation failed');
  }

  /** Saves the counts in the store (never throws). */
  save(): void {
    this.#lastSaveMs = this.#now();
    if (!this.#o.store) return;
    try {
      this.#o.store.saveModel(STATE_MODEL, { version: 1, step: this.#s.stepMs, book: this.#book.state() });
    } catch (err) {
      this.#o.logger?.warn({ err }, 'slice counts not saved');
    }
  }

  /** Stops the timer and saves. Idempotent. */
  shutdown(): Promise<void> {
    return (this.#shutdown ??= (async () => {
      if (this.#timer) clearInterval(this.#timer);
      this.#timer = undefined;
      this.save();
      await this.#o.notifier?.forceFlush();
    })());
  }

  /** Forceflush: evaluates once (the gauges and verdicts are current afterwards). */
  async forceFlush(): Promise<void> {
    this.evaluate();
  }

  #step(e: SliceEntry, x: number, now: number): void {
    const before = e.cusum;
    e.cusum = Math.min(e.cap, cusumStep(e.cusum, x, e.llr!));
    if (e.cusum === 0) return this.#resetRun(e);
    if (before === 0) {
      e.runSinceMs = now;
      e.runSamples = 0;
      e.runFlagged = 0;
    }
    e.runSamples += 1;
    e.runFlagged += x;
  }

  /**
   * The statistic of a slice just tested starts from the answers that waited for its reference: their
   * LLR sum, a lower bound of the CUSUM over them in any order (the CUSUM is the largest sum of a suffix).
   */
  #startFromPending(e: SliceEntry, now: number): void {
    const { pendingSamples: n, pendingFlagged: k } = e;
    e.pendingSamples = e.pendingFlagged = 0;
    const s = k * e.llr!.flagged + (n - k) * e.llr!.good;
    if (n === 0 || s <= 0) return;
    e.cusum = s;
    e.runSinceMs = now;
    e.runSamples = n;
    e.runFlagged = k;
  }

  #resetRun(e: SliceEntry): void {
    e.cusum = 0;
    e.runSamples = 0;
    e.runFlagged = 0;
    e.runSinceMs = null;
  }

  #flagOfCalibrated(metric: string, judge: string, score: number): number | undefined {
    const good = this.#o.probability?.(metric, judge, score);
    return good === undefined ? undefined : 1 - good;
  }

  #forget(service: string, slice: Slice): void {
    for (const e of slice.entries.values()) {
      const labels = { metric: e.metric, judge: e.judge, service, dimension: slice.dimension, slice: slice.value };
      this.#answers?.remove(labels);
      this.#flagged?.remove(labels);
      this.#active?.remove(labels);
    }
  }

  #restore(): void {
    let saved: { version: number; step: number; book: BookState } | undefined;
    try {
      saved = this.#o.store?.model(STATE_MODEL);
    } catch (err) {
      this.#o.logger?.warn({ err }, 'slice counts not restored');
    }
    if (saved?.version !== 1 || saved.step !== this.#s.stepMs || !saved.book) return;
    const n = this.#book.restore(saved.book, this.#now());
    this.#o.logger?.info({ slices: n }, 'slice counts restored');
  }
}

/** One slice × metric × judge as `/api/status` shows it. */
function statusOf(service: string, s: Slice, e: SliceEntry): SliceStatus {
  const out: SliceStatus = {
    service, dimension: s.dimension, slice: s.value, metric: e.metric, judge: e.judge,
    state: e.firingSinceMs !== undefined ? 'firing' : e.llr ? 'ok' : 'untested',
    reference: e.reference, referenceShare: e.referenceShare, referenceSamples: e.referenceSamples,
    cusum: e.cusum, threshold: e.threshold, runSamples: e.runSamples, runFlagged: e.runFlagged, runSinceMs: e.runSinceMs,
  };
  if (e.firingSinceMs !== undefined) out.firingSinceMs = e.firingSinceMs;
  return out;
}
