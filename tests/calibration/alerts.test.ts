/**
 * Alerts `on: calibrated`: a judge whose raw score looks healthy (0.9 ≥ its 0.8 threshold) but whose
 * calibration says people call such answers good only 20 % of the time fires — in the in-process
 * evaluator — while `on: raw` does not. The generated rules through a real `promtool test rules`:
 * `alerts.integration.test.ts`.
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

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-calalerts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// P(good | 0.9) = 1 / (1 + e^(10·0.9 − 7.614)) ≈ 0.2.
const model: CalibrationModel = { metric: 'grounding_lexical', judge: 'embedded', labelMetric: 'groundedness', map: { method: 'platt', a: 10, b: -7.614 }, conformal: { alpha: 0.1, qhat: 0.85, n: 100 }, n: 500, brier: 0.1, fittedAt: new Date().toISOString() };
const alerts = (on: 'raw' | 'calibrated') => ({ metrics: { grounding_lexical: { threshold: on === 'raw' ? 0.8 : 0.5, window: '5m', minSamples: 3, for: '1m', on, severity: 'page' } } });

describe('alerts on the calibrated probability', () => {
  it('fire in the in-process evaluator on calibrated P(good) while the raw score is above its threshold', async () => {
    expect(applyMap(model.map, 0.9)).toBeCloseTo(0.2, 2);
    const file = join(dir, 'cal.json');
    saveCalibrationFile(file, [model]);
    for (const on of ['calibrated', 'raw'] as const) {
      const clock = { t: 1_000_000 };
      const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, calibration: { file }, alerts: alerts(on) } });
      const quality = new QualityMonitor({ config, instruments: createInstruments(instrumentsOptionsFromConfig(config)), now: () => clock.t });
      const record: ScoreRecord = { tripletId: 't', traceId: '0'.repeat(32), service: 'rag', stratum: 's', weight: 1, timestamp: new Date().toISOString(), judge: { kind: 'embedded' }, scores: { grounding_lexical: 0.9 }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } };
      for (let i = 0; i < 5; i++) quality.onRecord(record);
      quality.evaluator.evaluate();
      clock.t += 61_000;
      const active = quality.evaluator.evaluate();
      if (on === 'calibrated') expect(active).toMatchObject([{ metric: 'grounding_lexical', state: 'firing', samples: 5 }]);
      else expect(active).toEqual([]);
      if (on === 'calibrated') expect(active[0]!.value).toBeCloseTo(0.2, 2);
      await quality.shutdown();
    }
  });
});
