/**
 * Online refit from the review store: labels given to stored answers (scores drawn from a known link)
 * are refitted on the worker thread once enough arrived, the calibrated series appear, the fit is
 * saved in the SQLite file — and a restarted monitor on the same file serves the calibrated series at
 * once, without refitting.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyMap } from '../../src/calibration/fit.ts';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import { openReviewStore } from '../../src/store/create.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { metricValue } from '../helpers/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-refit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function start() {
  const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, store: { dataDir: dir, maxReviewItemsPerSecond: 1e9 }, calibration: { refitIntervalMs: 3_600_000, refitMinNewLabels: 50 } } });
  const instruments = createInstruments(instrumentsOptionsFromConfig(config));
  const review = (await openReviewStore(config, instruments.registry, silentLogger))!;
  const quality = new QualityMonitor({ config, instruments, review });
  return { quality, review, text: () => instruments.registry.metrics() };
}

const pair = (i: number, score: number): [ScoreRecord, SampledTriplet] => {
  const id = `ans-${i}`;
  const triplet: SampledTriplet = { id, traceId: `${i}`.padStart(32, '1'), spanId: '0'.repeat(16), service: 'rag', timestamp: new Date().toISOString(), query: 'q', sources: [{ content: 'c' }], response: 'r', latency: { durationMs: 1 }, convention: 'custom', sampling: { weight: 1, stratum: 's', rule: 'r' } };
  const record: ScoreRecord = { tripletId: id, traceId: triplet.traceId, service: 'rag', stratum: 's', weight: 1, timestamp: triplet.timestamp, judge: { kind: 'embedded' }, scores: { grounding_lexical: score }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } };
  return [record, triplet];
};

describe('online refit', () => {
  it('fits on the worker once enough labels arrived, saves the fit, and a restart serves it without refitting', async () => {
    const first = await start();
    let seed = 11;
    const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (let i = 0; i < 600; i++) {
      const s = rand();
      first.quality.onRecord(...pair(i, s));
      first.review.addLabel({ tripletId: `ans-${i}`, metric: 'groundedness', value: rand() < s ** 3 ? 1 : 0 });
    }
    const models = await first.quality.refitter!.refit();
    expect(models?.map((m) => [m.metric, m.judge, m.labelMetric])).toEqual([['grounding_lexical', 'embedded', 'groundedness']]);
    // P(good | 0.9) ≈ 0.73 under the s³ link.
    expect(Math.abs(applyMap(models![0]!.map, 0.9) - 0.729)).toBeLessThan(0.15);
    // Fewer new labels than refitMinNewLabels: no second fit.
    expect(await first.quality.refitter!.refit()).toBeUndefined();
    first.quality.onRecord(...pair(10_000, 0.9));
    const text = await first.text();
    expect(metricValue(text, 'ragwatch_calibration_labels', { metric: 'grounding_lexical', judge: 'embedded' })).toBe(600);
    expect(metricValue(text, 'ragwatch_score_calibrated_mean_ratio', { metric: 'grounding_lexical' })).toBeDefined();
    await first.quality.shutdown();

    const second = await start();
    second.quality.onRecord(...pair(20_000, 0.9));
    const after = await second.text();
    expect(metricValue(after, 'ragwatch_calibration_labels', { metric: 'grounding_lexical', judge: 'embedded' })).toBe(600);
    expect(metricValue(after, 'ragwatch_score_calibrated_mean_ratio', { metric: 'grounding_lexical', service: 'rag' })).toBeCloseTo(applyMap(models![0]!.map, 0.9), 9);
    await second.quality.shutdown();
  }, 60_000);
});
