/**
 * Unbiasedness of weighted aggregates: two strata sampled at 1% and 50% with different score
 * levels. The weighted histogram (`ragwatch_score_ratio`, observed with weight = 1/p) recovers
 * the population mean; an unweighted mean of the same sample is far off.
 */
import { describe, expect, it } from 'vitest';
import type { Judge, JudgeResult } from '../../src/judges/types.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { StratifiedSampler } from '../../src/sampling/stratified.ts';
import { Scorer } from '../../src/scorer/scorer.ts';
import type { SampledTriplet } from '../../src/triplet.ts';
import { tripletOf } from './fixtures.ts';

/** Scores each triplet with the number written in its response (the population's "true" score). */
class ValueJudge implements Judge {
  readonly kind = 'embedded' as const;
  readonly ready = true;
  init(): Promise<void> {
    return Promise.resolve();
  }
  score(t: SampledTriplet): Promise<JudgeResult> {
    return Promise.resolve({
      ok: true,
      scores: { response_self_distinctness: Number(t.response) },
      skipped: {},
      details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] },
      usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 },
    });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

describe('weighted aggregates stay unbiased across strata sampled at different rates', () => {
  it('recovers the population mean with strata at 1% and 50%', async () => {
    const instruments = createInstruments({ processMetrics: false });
    const sampler = new StratifiedSampler({ by: 'route', rates: { '/rare': 0.01, '/common': 0.5 } });
    const scorer = new Scorer({ judge: new ValueJudge(), instruments });
    const perStratum = 40_000;
    let populationSum = 0;
    let unweightedSum = 0;
    let unweightedN = 0;
    for (let i = 0; i < 2 * perStratum; i++) {
      const rare = i % 2 === 0;
      // /rare answers well (0.8–1.0), /common badly (0.2–0.4): the overall mean is 0.6.
      const value = (rare ? 0.8 : 0.2) + (0.2 * ((i * 7919) % 1000)) / 1000;
      populationSum += value;
      const t = tripletOf(i, { route: rare ? '/rare' : '/common', response: String(value) });
      const d = sampler.shouldSample(t);
      if (!d.sampled) continue;
      instruments.inFlight.inc();
      const result = await scorer.handle({ ...t, sampling: d.sampling });
      expect(result.status).toBe('scored');
      unweightedSum += value;
      unweightedN++;
    }
    const populationMean = populationSum / (2 * perStratum);
    const series = (await instruments.score.get()).values;
    const sum = series.find((v) => v.metricName === 'ragwatch_score_ratio_sum')!.value;
    const count = series.find((v) => v.metricName === 'ragwatch_score_ratio_count')!.value;
    const weightedMean = sum / count;
    const unweightedMean = unweightedSum / unweightedN;

    expect(populationMean).toBeCloseTo(0.6, 2);
    // The weighted count estimates the population size.
    expect(count / (2 * perStratum)).toBeGreaterThan(0.9);
    expect(count / (2 * perStratum)).toBeLessThan(1.1);
    expect(Math.abs(weightedMean - populationMean)).toBeLessThan(0.03);
    // Without weights the 50% stratum swamps the 1% one.
    expect(Math.abs(unweightedMean - populationMean)).toBeGreaterThan(0.2);
    expect((await instruments.inFlight.get()).values[0]?.value).toBe(0);
  });
});
