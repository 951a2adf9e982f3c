/**
 * Human labels calibrate the local judge's `claim_support` like any metric: the default
 * `calibration.labelMetrics` maps the reviewers' `groundedness` concept to it, the points group under
 * (claim_support, local), and a fit on the judge's real development-file scores (right answers labelled
 * good, hallucinated ones bad) gives a calibration that keeps their ranking: a higher claim_support maps
 * to a higher probability that a person says the answer is grounded.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyMap, fitCalibration } from '../../src/calibration/fit.ts';
import { labelledPoints, type LabelledAnswer } from '../../src/calibration/labels.ts';
import { defaultConfig } from '../../src/config/load.ts';
import type { ScoreRecord } from '../../src/triplet.ts';

const FIXTURE = JSON.parse(readFileSync(new URL('../fixtures/halueval-local-scores.json', import.meta.url), 'utf8')) as { right: Array<ScoreRecord['scores']>; hallucinated: Array<ScoreRecord['scores']> };

function answer(id: string, scores: ScoreRecord['scores'], good: boolean): LabelledAnswer {
  const record: ScoreRecord = {
    tripletId: id, traceId: id, service: 'svc', stratum: 'all', weight: 1, timestamp: '2026-11-28T00:00:00Z', judge: { kind: 'local', model: 'qwen2.5-coder-1.5b-instruct' },
    scores, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 1, inputTokens: 200, outputTokens: 0, durationMs: 1 },
  };
  return { id, labels: { groundedness: good ? 1 : 0 }, records: [record] };
}

describe('calibration of the local judge', () => {
  it('fits claim_support from groundedness labels on its real scores', () => {
    const answers = [...FIXTURE.right.map((s, i) => answer(`r${i}`, s, true)), ...FIXTURE.hallucinated.map((s, i) => answer(`h${i}`, s, false))];
    const groups = labelledPoints(answers, defaultConfig().calibration.labelMetrics);
    const g = groups.get('claim_support\u0000local');
    expect(g).toMatchObject({ metric: 'claim_support', judge: 'local', labelMetric: 'groundedness' });
    expect(g!.points).toHaveLength(answers.length);
    // The lexical check in the same records is calibrated on its own, under the same judge.
    expect(groups.get('grounding_lexical\u0000local')?.judge).toBe('local');
    const { model, report } = fitCalibration(g!, g!.points, { alpha: 0.1, threshold: 0.5 });
    expect(model).toBeDefined();
    expect(report.auc!).toBeGreaterThan(0.75);
    expect(report.method).not.toBeNull();
    expect(applyMap(model!.map, 0.2)).toBeLessThan(applyMap(model!.map, 0.7));
  });
});
