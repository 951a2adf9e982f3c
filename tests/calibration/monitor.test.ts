/**
 * A saved calibration applied to live scores through the quality monitor (`calibration.file`): the
 * calibrated mean equals the weighted mean of P(good) computed by hand, the review share counts the
 * {good, bad} sets, probe records stay out, scores without a calibration give no series — and a new
 * monitor (a restart) serves the same series from the file without refitting.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyMap } from '../../src/calibration/fit.ts';
import type { CalibrationModel } from '../../src/calibration/types.ts';
import { saveCalibrationFile } from '../../src/calibration/load-file.ts';
import { loadConfig } from '../../src/config/load.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import type { ScoreRecord } from '../../src/triplet.ts';
import { metricValue } from '../helpers/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-calmon-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const model: CalibrationModel = {
  metric: 'grounding_lexical', judge: 'embedded', labelMetric: 'groundedness',
  map: { method: 'platt', a: -6, b: 3 }, conformal: { alpha: 0.1, qhat: 0.7, n: 200 }, n: 1000, brier: 0.12, fittedAt: new Date(Date.now() - 3_600_000).toISOString(),
};

const record = (score: number, weight: number, origin?: 'probe'): ScoreRecord => ({
  tripletId: `t${score}`, traceId: '0'.repeat(32), service: 'rag', stratum: 's', weight, timestamp: new Date().toISOString(), judge: { kind: 'embedded' },
  scores: { grounding_lexical: score, answer_relevancy: 0.5 }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [],
  usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 }, ...(origin ? { origin } : {}),
});

function monitor(file: string): { m: QualityMonitor; text: () => Promise<string> } {
  const config = loadConfig({ env: {}, overrides: { calibration: { file }, metrics: { processMetrics: false } } });
  const instruments = createInstruments(instrumentsOptionsFromConfig(config));
  return { m: new QualityMonitor({ config, instruments }), text: () => instruments.registry.metrics() };
}

describe('calibrated live series', () => {
  it('calibrated mean and needs-review share by hand; probes and uncalibrated metrics left out; a restart serves them from the file', async () => {
    const file = join(dir, 'cal.json');
    saveCalibrationFile(file, [model]);
    const feed = (m: QualityMonitor) => {
      m.onRecord(record(0.9, 1));
      m.onRecord(record(0.5, 3));
      m.onRecord(record(0.1, 1));
      m.onRecord(record(0.0, 5, 'probe'));
    };
    const p = (s: number) => applyMap(model.map, s);
    // Sets with q̂ 0.7: p(0.9) ≈ 0.95 → good; p(0.5) = 0.5 → both; p(0.1) ≈ 0.08 → bad.
    const expectedMean = (p(0.9) + 3 * p(0.5) + p(0.1)) / 5;
    for (const { m, text: read } of [monitor(file), monitor(file)]) {
      feed(m);
      const text = await read();
      expect(metricValue(text, 'ragwatch_score_calibrated_mean_ratio', { metric: 'grounding_lexical', judge: 'embedded', service: 'rag' })).toBeCloseTo(expectedMean, 9);
      expect(metricValue(text, 'ragwatch_needs_review_ratio', { metric: 'grounding_lexical', judge: 'embedded' })).toBeCloseTo(3 / 5, 9);
      expect(metricValue(text, 'ragwatch_calibration_labels', { metric: 'grounding_lexical' })).toBe(1000);
      expect(metricValue(text, 'ragwatch_calibration_brier', { metric: 'grounding_lexical' })).toBe(0.12);
      expect(metricValue(text, 'ragwatch_calibration_age_seconds', { metric: 'grounding_lexical' })).toBeGreaterThanOrEqual(3600);
      expect(text).not.toMatch(/ragwatch_score_calibrated_mean_ratio\{metric="answer_relevancy"/);
      await m.shutdown();
    }
  });

  it('a bad calibration file stops the start naming calibration.file', () => {
    expect(() => monitor(join(dir, 'missing.json'))).toThrow(/config key "calibration.file"/);
  });
});
