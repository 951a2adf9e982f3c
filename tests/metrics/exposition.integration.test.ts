/**
 * ragwatch's own exposition passes a real `promtool check metrics` (prom-client's default Node
 * metrics excluded: promtool flags their names), with scored traffic over many services and routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { Scorer } from '../../src/scorer/scorer.ts';
import { createInstruments, instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';
import { haveBinaries, promtool } from '../helpers/prometheus.ts';
import { ownFamilies, triplet } from './exposition-traffic.ts';

describe.skipIf(!haveBinaries('promtool check metrics', 'promtool'))('exposition × promtool', () => {
  const config = loadConfig({ env: {}, overrides: { metrics: { maxServices: 5, processMetrics: true } } });
  const instruments = createInstruments(instrumentsOptionsFromConfig(config));
  const quality = new QualityMonitor({ config, instruments });
  const scorer = new Scorer({ judge: new LexicalJudge(), instruments, onRecord: quality.onRecord });

  beforeAll(async () => {
    for (let i = 0; i < 500; i++) await scorer.handle(triplet(i));
    quality.evaluator.evaluate();
  });
  afterAll(() => quality.shutdown());

  it('promtool check metrics passes on ragwatch own series', async () => {
    const text = ownFamilies(await instruments.registry.metrics());
    expect(text).toContain('ragwatch_score_ratio_bucket');
    expect(text).not.toContain('ragwatch_process_');
    const r = promtool(['check', 'metrics'], text);
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });
});
