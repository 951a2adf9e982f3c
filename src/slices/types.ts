/**
 * Slice-alert and release-gate contracts (DESIGN §19): per service, the answers of one release, route
 * or generation model, tested on counts against their own baseline or — with none yet (a new release)
 * — against the rest of the service over the same steps (concurrent comparison).
 * @module
 */
import type { FlagRule } from '../metrics/flag-rules.ts';
import type { ReleaseTestSettings, ReleaseVerdict, MetricComparison } from './statistic.ts';

export type { ReleaseTestSettings, ReleaseVerdict, MetricComparison };

/** A dimension answers are sliced by. */
export type SliceDimension = 'release' | 'route' | 'model';

/** Resolved slice settings (durations in milliseconds). */
export interface SliceSettings {
  dimensions: readonly SliceDimension[];
  /** Values tracked per service and dimension (top-K by recency of traffic); the rest count as `other`. */
  maxSlices: Readonly<Record<SliceDimension, number>>;
  falsePagesPer30Days: number;
  shift: number;
  minRatio: number;
  baselineMs: number;
  recentMs: number;
  /** Resolution of the per-slice snapshots. */
  stepMs: number;
  minBaselineSamples: number;
  minReferenceSamples: number;
  maxShare: number;
  idleMs: number;
  keepFiringForMs: number;
}

/** One metric tested in slices: its cut and whether answers count with their calibrated P(bad). */
export type SliceRule = FlagRule;

/** Live release comparison settings. */
export interface ReleaseSettings extends ReleaseTestSettings {
  windowMs: number;
}

/** Where a slice's reference share comes from. */
export type ReferenceKind = 'own_baseline' | 'concurrent';

/** One slice × metric × judge as `/api/status` and the pages show it. */
export interface SliceStatus {
  service: string;
  dimension: SliceDimension;
  slice: string;
  metric: string;
  judge: string;
  /** `untested`: no reference yet, or the slice holds nearly all of its service's answers. */
  state: 'untested' | 'ok' | 'firing';
  reference: ReferenceKind | null;
  /** Reference flagged share (its upper bound, as tested) and its answers. */
  referenceShare: number | null;
  referenceSamples: number;
  /** The CUSUM statistic and the threshold that holds the service's false-page budget. */
  cusum: number;
  threshold: number;
  /** Answers and flagged answers since the statistic last left 0 (the evidence of a drop). */
  runSamples: number;
  runFlagged: number;
  runSinceMs: number | null;
  firingSinceMs?: number;
}

/** One release of a service in the live comparison. */
export interface ReleaseStatus {
  release: string;
  /** Judged answers in the comparison window. */
  answers: number;
  firstSeenMs: number;
  lastSeenMs: number;
  /** Against the service's baseline release (absent for the baseline itself). */
  verdict?: ReleaseVerdict;
  metrics?: Array<MetricComparison & { metric: string; judge: string }>;
}

/** The releases of one service, side by side. */
export interface ServiceReleases {
  service: string;
  /** The release with most answers in the window: what the others are compared with. */
  baseline: string;
  releases: ReleaseStatus[];
}
