/**
 * The accounting identity (DESIGN §9) read from ragwatch's registry:
 * `captured = sampled + not_sampled` and `sampled = scored + failed + dropped_after_sampling + in_flight + in_topic`,
 * where `in_topic = produced − received` (Kafka: acknowledged by the broker, not yet read; 0 in memory mode).
 * The same formula balances a collector (nothing received) and a scorer (nothing sampled) alone.
 * Logged by `ragwatch start` when it stops, so a shutdown's final tally is on record.
 * @module
 */
import type { Registry } from 'prom-client';

/** Stages whose drops happen before sampling (not part of the second identity). */
const PRE_SAMPLING_STAGES = new Set(['ingest', 'processor', 'capture', 'sampling']);
/** Drop reasons that are not lost triplets (a redelivery of one already counted). */
const NOT_A_LOSS = new Set(['duplicate']);

/** Totals behind the accounting identity, and how far each side is from balancing. */
export interface AccountingSnapshot {
  captured: number;
  sampled: number;
  notSampled: number;
  scored: number;
  failed: number;
  inFlight: number;
  /** Drops after sampling (transport, scorer), the third term of the second identity. */
  droppedAfterSampling: number;
  /** Kafka: produced − received, messages waiting in the triplets topic (as seen by this process). */
  inTopic: number;
  /** Every drop, keyed `stage/reason`. */
  dropped: Record<string, number>;
  /** `captured − sampled − not_sampled`; 0 when nothing was lost unexplained. */
  residualCaptured: number;
  /** `sampled − scored − failed − dropped_after_sampling − in_flight − in_topic`; 0 when nothing was lost unexplained. */
  residualSampled: number;
}

/** The metrics the identity reads: only these are collected (not every gauge of the registry). */
const NAMES = ['ragwatch_dropped_total', 'ragwatch_triplets_captured_total', 'ragwatch_triplets_sampled_total', 'ragwatch_triplets_not_sampled_total', 'ragwatch_triplets_scored_total', 'ragwatch_triplets_failed_total', 'ragwatch_triplets_in_flight', 'ragwatch_triplets_produced_total', 'ragwatch_triplets_received_total'];

/** Reads the identity's totals from the registry. */
export async function accountingSnapshot(registry: Registry): Promise<AccountingSnapshot> {
  const metrics = await Promise.all(NAMES.map(async (name) => ({ name, values: (await registry.getSingleMetric(name)?.get())?.values ?? [] })));
  const sum = (name: string) => metrics.find((m) => m.name === name)?.values.reduce((a, v) => a + v.value, 0) ?? 0;
  const dropped: Record<string, number> = {};
  let droppedAfterSampling = 0;
  for (const v of metrics.find((m) => m.name === 'ragwatch_dropped_total')?.values ?? []) {
    const stage = String(v.labels.stage);
    const reason = String(v.labels.reason);
    dropped[`${stage}/${reason}`] = v.value;
    if (!PRE_SAMPLING_STAGES.has(stage) && !NOT_A_LOSS.has(reason)) droppedAfterSampling += v.value;
  }
  const s = {
    captured: sum('ragwatch_triplets_captured_total'),
    sampled: sum('ragwatch_triplets_sampled_total'),
    notSampled: sum('ragwatch_triplets_not_sampled_total'),
    scored: sum('ragwatch_triplets_scored_total'),
    failed: sum('ragwatch_triplets_failed_total'),
    inFlight: sum('ragwatch_triplets_in_flight'),
    inTopic: sum('ragwatch_triplets_produced_total') - sum('ragwatch_triplets_received_total'),
  };
  return {
    ...s,
    droppedAfterSampling,
    dropped,
    residualCaptured: s.captured - s.sampled - s.notSampled,
    residualSampled: s.sampled - s.scored - s.failed - droppedAfterSampling - s.inFlight - s.inTopic,
  };
}
