/**
 * Probe isolation (issue 17): a probe's trace id is marked, so its triplet is tagged origin=probe at
 * capture, always sampled (even at sampling.rate 0), scored, and kept out of every production series,
 * window, alert and example — a probe run cannot move a production alert.
 */
import { describe, expect, it } from 'vitest';
import { decodeTraces } from '../../src/capture/otlp/decode.ts';
import { loadConfig } from '../../src/config/load.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import { Pipeline } from '../../src/roles/pipeline.ts';
import { probeTraceId } from '../../src/probes/trace-id.ts';
import { isProbeTraceId } from '../../src/triplet.ts';
import type { ScoreRecord } from '../../src/triplet.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';
import { openInferenceTrace } from '../helpers/otlp.ts';

describe('probe origin', () => {
  it('marked trace ids: distinct, recognised, W3C-valid', () => {
    const a = probeTraceId();
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(a).not.toBe(probeTraceId());
    expect(isProbeTraceId(a)).toBe(true);
    expect(isProbeTraceId('4bf92f3577b34da6a3ce929d0e0e4736')).toBe(false);
  });

  it('a probe triplet is sampled at rate 0, scored, and touches no production series or window', async () => {
    const config = loadConfig({ env: {}, overrides: { sampling: { rate: 0 }, metrics: { processMetrics: false }, capture: { traceIdleMs: 60_000 } } });
    const instruments = createInstruments(instrumentsOptionsFromConfig(config));
    const quality = new QualityMonitor({ config, instruments });
    const records: ScoreRecord[] = [];
    const pipeline = new Pipeline({ config, instruments, judge: new LexicalJudge(), onRecord: (r, t) => (records.push(r), quality.onRecord(r, t)) });
    await pipeline.start();
    const trace = (traceId?: string) => decodeTraces(Buffer.from(JSON.stringify(openInferenceTrace({ query: 'Where is Alice?', documents: [{ content: 'Alice is in Lyon.' }], response: 'Alice is in Paris.', ...(traceId ? { traceId } : {}) }).body)), 'application/json').spans;
    pipeline.ingestSpans([...trace(), ...trace(probeTraceId())], 'otlp');
    await pipeline.forceFlush();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ origin: 'probe', stratum: 'probe', weight: 1 });
    expect(records[0]!.scores.groundedness).toBe(0);
    const metrics = await instruments.registry.metrics();
    expect(metrics).not.toMatch(/^ragwatch_score_ratio_count\{/m);
    expect(metrics).toMatch(/^ragwatch_probe_score_records_total 1$/m);
    expect(metrics).toMatch(/^ragwatch_triplets_not_sampled_total 1$/m);
    expect(quality.status().means).toEqual([]);
    expect(quality.examples.query({ limit: 10 })).toEqual([]);
    await pipeline.shutdown(1_000);
    await quality.shutdown();
  });
});
