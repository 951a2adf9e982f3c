/**
 * ragwatch's own exposition: the OpenMetrics variant carries trace-id exemplars, and the series count
 * stays within the configured bound however many triplets are scored. `promtool check metrics`:
 * `exposition.integration.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { openMetrics } from '../../src/metrics/openmetrics.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import { Scorer } from '../../src/scorer/scorer.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';
import { triplet } from './exposition-traffic.ts';

const MAX_SERVICES = 5;

/** Sample lines (series) of an exposition, without comments and without prom-client's process metrics. */
function series(text: string): string[] {
  return text.split('\n').filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith('ragwatch_process_'));
}

describe('exposition', () => {
  const config = loadConfig({ env: {}, overrides: { metrics: { maxServices: MAX_SERVICES, processMetrics: true } } });
  const instruments = createInstruments(instrumentsOptionsFromConfig(config));
  const quality = new QualityMonitor({ config, instruments });
  const scorer = new Scorer({ judge: new LexicalJudge(), instruments, onRecord: quality.onRecord });
  let afterFirst = 0;
  let firstBytes = 0;
  const scrapeMs: number[] = [];

  async function scrape(): Promise<string> {
    const t0 = performance.now();
    const text = await instruments.registry.metrics();
    scrapeMs.push(performance.now() - t0);
    return text;
  }

  beforeAll(async () => {
    for (let i = 0; i < 500; i++) await scorer.handle(triplet(i));
    const text = await scrape();
    afterFirst = series(text).length;
    firstBytes = text.length;
    for (let i = 500; i < 10_000; i++) await scorer.handle(triplet(i));
    quality.evaluator.evaluate();
  }, 60_000);
  afterAll(() => quality.shutdown());

  it('10,000 scored triplets across 50 routes and 50 services stay within the configured series bound', async () => {
    const text = await scrape();
    const all = series(text);
    const metrics = 3; // groundedness, source_query_coverage, response_query_coverage (lexical judge)
    const groups = metrics * 1 /* judge kinds */ * (MAX_SERVICES + 1); /* + other */
    expect(instruments.score.seriesCount).toBeLessThanOrEqual(groups);
    expect(quality.windows.seriesCount).toBeLessThanOrEqual(groups);
    const scoreFamilies = all.filter((l) => /^ragwatch_(score_|scores_)/.test(l) && !l.startsWith('ragwatch_score_by_query_type_'));
    // Per question type: bounded by metrics × judges × the 11 types, whatever the services and routes.
    expect(all.filter((l) => l.startsWith('ragwatch_score_by_query_type_')).length).toBeLessThanOrEqual(metrics * 1 * 11);
    const bucketsPerGroup = instruments.score.get().values.filter((v) => v.metricName.endsWith('_bucket')).length / instruments.score.seriesCount;
    // histogram (buckets + _sum + _count) + samples counter + weight-squares counter + mean gauge + window-samples gauge
    expect(scoreFamilies.length).toBeLessThanOrEqual(groups * (bucketsPerGroup + 2 + 4));
    expect(all.length).toBe(afterFirst);
    expect(text.length).toBeLessThan(firstBytes * 1.2);
    // Routes are labels only of the slice series, and only the tracked ones (alerts.slices.maxRoutes per service).
    const sliceLines = text.split('\n').filter((l) => l.startsWith('ragwatch_slice'));
    expect(text.split('\n').filter((l) => !l.startsWith('ragwatch_slice')).join('\n')).not.toMatch(/route-|trace-0|svc-(?:[5-9]|[1-4]\d)"/);
    expect(sliceLines.join('\n')).not.toMatch(/trace-0|svc-(?:[5-9]|[1-4]\d)"/);
    const routesPerService = new Map<string, Set<string>>();
    for (const l of sliceLines) {
      const m = /service="([^"]+)",dimension="route",slice="([^"]+)"/.exec(l);
      if (m) routesPerService.set(m[1]!, (routesPerService.get(m[1]!) ?? new Set()).add(m[2]!));
    }
    expect(routesPerService.size).toBeGreaterThan(0);
    for (const routes of routesPerService.values()) expect(routes.size).toBeLessThanOrEqual(config.alerts.slices.maxRoutes);
    expect(text).toContain('service="other"');
    console.info(`exposition: ${all.length} series, ${text.length} bytes, scrape ${scrapeMs.map((m) => m.toFixed(1)).join(' / ')} ms`);
  });

  it('OpenMetrics exposition carries trace_id exemplars and ends with # EOF', async () => {
    const om = await openMetrics(instruments.registry);
    expect(om.endsWith('# EOF\n')).toBe(true);
    expect(om).toMatch(/^ragwatch_score_ratio_bucket\{[^}]*\} [\d.e+]+ # \{trace_id="trace-[0-9a-f]{8}"\} [\d.]+ \d+\.\d{3}$/m);
    expect(om).toMatch(/^# TYPE ragwatch_score_samples counter$/m);
    expect(om).toMatch(/^ragwatch_score_samples_total\{/m);
  });
});
