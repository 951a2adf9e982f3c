import { afterEach, describe, expect, it } from 'vitest';
import type { AlertNotice } from '../../src/metrics/notifier.ts';
import { DAY, HOUR, MIN, T0, feed, metricValue, openHarness, record, type HistoryHarness } from './fixtures.ts';

let h: HistoryHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const total = (hh: HistoryHarness, metric = 'groundedness') =>
  hh.store.rollups({ service: 'rag', metric, fromMs: 0, toMs: T0 + 30 * DAY }).reduce((a, r) => ({ answers: a.answers + r.answers, weight: a.weight + r.weight, sum: a.sum + r.weightedSum, flagged: a.flagged + (r.flaggedWeight ?? 0) }), { answers: 0, weight: 0, sum: 0, flagged: 0 });

function notice(status: 'firing' | 'resolved', startMs: number, endMs: number, labels: Record<string, string> = {}): AlertNotice {
  return { status, labels: { alertname: 'RagwatchGroundednessLow', metric: 'groundedness', service: 'rag', judge: 'embedded', severity: 'page', source: 'ragwatch', ...labels }, annotations: {}, startsAt: new Date(startMs).toISOString(), endsAt: new Date(endMs).toISOString(), generatorURL: '' };
}

describe('history store', () => {
  it('keeps the weighted mean, flagged share and answers of each minute, written only at a flush', async () => {
    h = await openHarness();
    const { sink, view } = h.history;
    // Minute 0: scores 0.9 (w 1), 0.5 (w 3) → mean (0.9 + 1.5) / 4 = 0.6, flagged (≤ 0.7) weight 3 of 4.
    feed(h, record(T0 + 1_000, { groundedness: 0.9, completeness: 0.4 }));
    feed(h, record(T0 + 2_000, { groundedness: 0.5 }, { weight: 3 }));
    feed(h, record(T0 + MIN + 1, { groundedness: 1 }));
    expect(h.store.rowCount()).toBe(0);
    sink.flush();
    expect(h.store.rowCount()).toBe(3);
    h.clock.ms = T0 + 5 * MIN;
    const r = view.series({ service: 'rag', metric: 'groundedness', fromMs: T0, toMs: T0 + 2 * MIN, stepMs: MIN });
    expect(r.threshold).toBe(0.7);
    expect(r.series).toHaveLength(1);
    const [m0, m1] = r.series[0]!.points;
    expect(m0).toMatchObject({ t: T0, answers: 2, weight: 4, flaggedShare: 0.75 });
    expect(m0!.mean).toBeCloseTo(0.6, 12);
    expect(m1).toMatchObject({ t: T0 + MIN, answers: 1, mean: 1, flaggedShare: 0 });
    // completeness has no threshold: a mean, no flagged share.
    const c = view.series({ service: 'rag', metric: 'completeness', fromMs: T0, toMs: T0 + MIN, stepMs: MIN });
    expect(c.series[0]!.points[0]).toMatchObject({ mean: 0.4, flaggedShare: null, answers: 1 });
  });

  it('leaves probe records out and stamps a record from the future at the clock', async () => {
    h = await openHarness();
    h.clock.ms = T0 + 10 * MIN;
    h.history.sink.onRecord(record(T0 + MIN, { groundedness: 0.2 }, { origin: 'probe' }));
    h.history.sink.onRecord(record(T0 + DAY, { groundedness: 0.8 }));
    h.history.sink.flush();
    const rows = h.store.rollups({ service: 'rag', metric: 'groundedness', fromMs: 0, toMs: T0 + 2 * DAY });
    expect(rows.map((r) => [r.startMs, r.answers])).toEqual([[T0 + 10 * MIN, 1]]);
  });

  it('merges minutes older than fineRetention into coarse steps without losing a sum, and late minutes into them', async () => {
    h = await openHarness({ fineRetention: '1h', coarseStep: '10m' });
    for (let m = 0; m < 120; m++) feed(h, record(T0 + m * MIN + 5_000, { groundedness: (m % 10) / 10 }, { weight: 1 + (m % 3) }));
    h.history.sink.flush();
    const before = total(h);
    expect(h.store.rowCount()).toBe(120);
    h.clock.ms = T0 + 2 * HOUR;
    h.history.sink.maintain();
    // The first hour (6 steps of 10 min) merged; the last hour kept by the minute.
    const rows = h.store.rollups({ service: 'rag', metric: 'groundedness', fromMs: 0, toMs: T0 + DAY });
    expect(rows.filter((r) => r.stepMs === 10 * MIN).map((r) => r.startMs)).toEqual([0, 1, 2, 3, 4, 5].map((k) => T0 + k * 10 * MIN));
    expect(rows.filter((r) => r.stepMs === MIN)).toHaveLength(60);
    const after = total(h);
    expect(after.answers).toBe(before.answers);
    expect(after.weight).toBe(before.weight);
    expect(after.sum).toBeCloseTo(before.sum, 9);
    expect(after.flagged).toBe(before.flagged);
    // A late answer for minute 0 lands on the merged step's start; one for minute 13 in the middle of another.
    feed(h, record(T0 + 30_000, { groundedness: 1 }));
    feed(h, record(T0 + 13 * MIN, { groundedness: 1 }));
    h.history.sink.maintain();
    const merged = h.store.rollups({ service: 'rag', metric: 'groundedness', fromMs: 0, toMs: T0 + HOUR });
    expect(merged.map((r) => [r.startMs - T0, r.stepMs, r.answers])).toEqual([0, 1, 2, 3, 4, 5].map((k) => [k * 10 * MIN, 10 * MIN, k < 2 ? 11 : 10]));
    // A window reaching back past the minutes is drawn with a multiple of the coarse step.
    const r = h.history.view.series({ service: 'rag', metric: 'groundedness', fromMs: T0, toMs: T0 + 2 * HOUR, stepMs: 5 * MIN });
    expect(r.stepMs).toBe(10 * MIN);
    expect(r.series[0]!.points.slice(0, 2).map((p) => p.answers)).toEqual([11, 11]);
  });

  it('deletes what is past the retention, counted', async () => {
    h = await openHarness({ retention: '2d', fineRetention: '1d' });
    for (let d = 0; d < 3; d++) feed(h, record(T0 + d * DAY, { groundedness: 0.9 }));
    h.clock.ms = T0 + 2 * DAY + HOUR;
    h.history.sink.maintain();
    const rows = h.store.rollups({ service: 'rag', metric: 'groundedness', fromMs: 0, toMs: T0 + 3 * DAY });
    expect(rows.map((r) => r.startMs)).toEqual([T0 + DAY, T0 + 2 * DAY]);
    expect(await metricValue(h.registry, 'ragwatch_history_evictions_total', { reason: 'retention' })).toBe(1);
    // An answer stamped before the retention is not kept, and counted.
    feed(h, record(T0, { groundedness: 0.9, completeness: 0.3 }));
    expect(await metricValue(h.registry, 'ragwatch_history_dropped_total', { reason: 'too_old' })).toBe(2);
  });

  it('holds maxRows by evicting the oldest rows, counted, and maxSeries by counting what it cannot keep', async () => {
    h = await openHarness({ maxRows: 100, maxSeries: 3 });
    for (let m = 0; m < 150; m++) feed(h, record(T0 + m * MIN, { groundedness: 0.9 }));
    h.clock.ms = T0 + 150 * MIN;
    h.history.sink.maintain();
    // 150 rows, 100 allowed, 5 % slack below: the 55 oldest minutes go.
    expect(h.store.rowCount()).toBe(95);
    expect(h.store.rollups({ service: 'rag', metric: 'groundedness', fromMs: 0, toMs: T0 + DAY })[0]!.startMs).toBe(T0 + 55 * MIN);
    expect(await metricValue(h.registry, 'ragwatch_history_evictions_total', { reason: 'max_rows' })).toBe(55);
    feed(h, record(h.clock.ms, { completeness: 0.5, answer_relevancy: 0.5, faithfulness: 0.5 }));
    h.history.sink.flush();
    expect(h.store.seriesCount).toBe(3);
    expect(await metricValue(h.registry, 'ragwatch_history_dropped_total', { reason: 'max_series' })).toBe(1);
  });

  it('keeps each release apart, marks when it was first seen, and counts releases beyond the bound as other', async () => {
    h = await openHarness({ maxReleasesPerService: 2 });
    feed(h, record(T0 + MIN, { groundedness: 0.9 }, { release: '1.0' }));
    feed(h, record(T0 + 30 * MIN, { groundedness: 0.3 }, { release: '1.1' }));
    feed(h, record(T0 + 31 * MIN, { groundedness: 0.3 }, { release: '1.2' }));
    feed(h, record(T0 + 32 * MIN, { groundedness: 0.9 }, { release: '1.0' }));
    h.clock.ms = T0 + HOUR;
    const r = h.history.view.series({ service: 'rag', metric: 'groundedness', fromMs: T0, toMs: T0 + HOUR, stepMs: MIN });
    expect(r.releases.map((x) => [x.release, x.firstMs, x.lastMs])).toEqual([
      ['1.0', T0 + MIN, T0 + 32 * MIN],
      ['1.1', T0 + 30 * MIN, T0 + 30 * MIN],
    ]);
    expect(await metricValue(h.registry, 'ragwatch_history_releases_other_total')).toBe(1);
    const only = h.history.view.series({ service: 'rag', metric: 'groundedness', release: '1.1', fromMs: T0, toMs: T0 + HOUR, stepMs: HOUR });
    expect(only.series[0]!.points[0]).toMatchObject({ answers: 1, mean: 0.3 });
    const other = h.history.view.series({ service: 'rag', metric: 'groundedness', release: 'other', fromMs: T0, toMs: T0 + HOUR, stepMs: HOUR });
    expect(other.series[0]!.points[0]!.answers).toBe(1);
  });

  it('turns firing and resolved notices into firings; one cut short by a restart ends at the last write', async () => {
    h = await openHarness();
    const { sink } = h.history;
    sink.onNotices([notice('firing', T0 + 10 * MIN, T0 + 11 * MIN), { ...notice('firing', T0, T0), labels: { alertname: 'RagwatchProbeAccuracyLow', suite: 'x' } }]);
    sink.onNotices([notice('resolved', T0 + 10 * MIN, T0 + 40 * MIN)]);
    sink.onNotices([notice('firing', T0 + 50 * MIN, T0 + 51 * MIN, { tier: 'page', alertname: 'RagwatchGroundednessDrop' })]);
    h.clock.ms = T0 + 55 * MIN;
    feed(h, record(T0 + 54 * MIN, { groundedness: 0.2 }));
    sink.flush();
    const firings = h.history.view.series({ service: 'rag', metric: 'groundedness', fromMs: T0, toMs: T0 + HOUR, stepMs: MIN }).firings;
    expect(firings.map((f) => [f.name, f.startMs - T0, f.endMs === undefined ? undefined : f.endMs - T0, f.labels])).toEqual([
      ['RagwatchGroundednessLow', 10 * MIN, 40 * MIN, {}],
      ['RagwatchGroundednessDrop', 50 * MIN, undefined, { tier: 'page' }],
    ]);
    h.clock.ms = T0 + 70 * MIN;
    h = await h.reopen();
    const after = h.history.view.series({ service: 'rag', metric: 'groundedness', fromMs: T0, toMs: T0 + 2 * HOUR, stepMs: MIN });
    expect(after.firings.map((f) => f.endMs! - T0)).toEqual([40 * MIN, 55 * MIN]);
    // And the rollups came back with the file.
    expect(after.series[0]!.points.find((p) => p.answers > 0)).toMatchObject({ t: T0 + 54 * MIN, mean: 0.2, flaggedShare: 1 });
  });

  it('survives a restart: what was pending at shutdown is written, and the release bound reloads', async () => {
    h = await openHarness({ maxReleasesPerService: 1 });
    feed(h, record(T0 + MIN, { groundedness: 0.8 }, { release: 'a' }));
    h = await h.reopen();
    feed(h, record(T0 + 2 * MIN, { groundedness: 0.6 }, { release: 'b' }));
    h.clock.ms = T0 + HOUR;
    const r = h.history.view.series({ service: 'rag', metric: 'groundedness', fromMs: T0, toMs: T0 + HOUR, stepMs: HOUR });
    expect(r.series[0]!.points[0]).toMatchObject({ answers: 2 });
    expect(r.series[0]!.points[0]!.mean).toBeCloseTo(0.7, 12);
    expect(r.releases.map((x) => x.release)).toEqual(['a']);
    expect(await metricValue(h.registry, 'ragwatch_history_releases_other_total')).toBe(1);
  });
});
