/**
 * How the roles turn stages' callbacks into the trail (src/roles/trail.ts): which sampler decided, what
 * capture missed, the judge's result, each export writer; and the trail's own series.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { createTrail, exportSettled, flagRuleOf, traceAssembled, traceDropped, traceOutcome, traceQueued, traceSampling, tracedHandler } from '../../src/roles/trail.ts';
import { TraceRing } from '../../src/trail/trace-ring.ts';
import type { SampledTriplet } from '../../src/triplet.ts';

const T = '4bf92f3577b34da6a3ce929d0e0e4736';
const triplet: SampledTriplet = { id: 't1', traceId: T, spanId: '00f067aa0ba902b7', service: 'svc', timestamp: '2026-11-01T10:00:00.000Z', query: 'q', sources: [{ content: 's' }], response: 'r', latency: { durationMs: 1 }, convention: 'genai', sampling: { weight: 4, stratum: 'all', rule: 'rate' } };
const events = (ring: TraceRing) => ring.get(T)!.events.map((e) => [e.stage, e.outcome, e.reason]);

describe('the roles\' trail', () => {
  it('names the sampler that decided and the conversation bound', () => {
    const ring = new TraceRing();
    traceSampling(ring, triplet, { sampled: false, rule: 'max_turns_per_conversation' });
    traceSampling(ring, triplet, { sampled: false, rule: 'drop-health-checks' });
    traceSampling(ring, triplet, { sampled: true, sampling: { weight: 4, stratum: 'all', rule: 'stratum_quota' } });
    const detail = ring.get(T)!.events.map((e) => e.detail);
    expect(detail[0]).toContain('sampling.maxTurnsPerConversation');
    expect(detail[1]).toContain('rule "drop-health-checks"');
    expect(detail[2]).toContain('quota per minute');
  });

  it('says what capture missed, and a trace without a generation span', () => {
    const ring = new TraceRing();
    traceOutcome(ring, { kind: 'incomplete', traceId: T, spanId: 'a'.repeat(16), mapper: 'custom', missing: ['sources', 'query'], explain: { spanName: 'chat', sourcesNote: 'context pattern matched, no documents in it' } });
    traceAssembled(ring, T, 2, 0, ['retrieve', 'embed']);
    traceAssembled(ring, T, 2, 1, ['chat']);
    expect(events(ring)).toEqual([
      ['capture', 'incomplete', 'sources'],
      ['capture', 'no_generation', 'generation'],
    ]);
    expect(ring.get(T)!.events[0]!.detail).toContain('missing sources, query — context pattern matched, no documents in it');
    expect(ring.get(T)!.events[1]!.detail).toContain('"retrieve", "embed"');
  });

  it('records queueing, the judge\'s retries, failure and shedding, and each writer', async () => {
    const ring = new TraceRing();
    traceQueued(ring, triplet, false, 'memory queue');
    const results = [{ status: 'retry', reason: 'RAGWATCH_JUDGE_RATE_LIMITED', retryAfterMs: 500 }, { status: 'failed', reason: 'RAGWATCH_JUDGE_MALFORMED', attempts: 2 }, { status: 'dropped', reason: 'budget_tokens' }] as const;
    let i = 0;
    const handle = tracedHandler(ring, () => Promise.resolve(results[i++]!), flagRuleOf(loadConfig({ env: {} })));
    await handle(triplet, { attempt: 1, source: { topic: 'ragwatch.triplets.v1', partition: 3, offset: '42' } });
    await handle(triplet, { attempt: 2 });
    await handle(triplet, { attempt: 1 });
    exportSettled(ring)('langfuse', [{ traceId: T } as never, { traceId: T } as never], { status: 'dropped', reason: 'queue_full' });
    expect(events(ring)).toEqual([
      ['queue', 'dropped', 'queue_full'],
      ['queue', 'delivered', 'kafka'],
      ['judge', 'retry', 'RAGWATCH_JUDGE_RATE_LIMITED'],
      ['judge', 'failed', 'RAGWATCH_JUDGE_MALFORMED'],
      ['judge', 'shed', 'budget_tokens'],
      ['export', 'dropped', 'queue_full'],
    ]);
    const e = ring.get(T)!.events;
    expect(e[1]!.detail).toBe('read from kafka topic ragwatch.triplets.v1 partition 3 offset 42');
    expect(e[3]!.detail).toContain('after 2 attempts');
    expect(e[4]!.detail).toContain('sampling.budget.maxTokensPerHour');
    expect(e[5]!.detail).toContain('2 evaluation results to langfuse');
  });

  it('capture tells the trail which trace lost spans at its buffer, and why', async () => {
    const { Capture } = await import('../../src/capture/capture.ts');
    const { createInstruments } = await import('../../src/telemetry/instruments.ts');
    const config = loadConfig({ env: {}, overrides: { capture: { maxSpansPerTrace: 2 } } });
    const ring = new TraceRing();
    const capture = new Capture({ config: config.capture, instruments: createInstruments({ processMetrics: false }), onTriplet: () => undefined, onDropped: (t, reason) => traceDropped(ring, t, reason) });
    const span = (i: number) => ({ traceId: T, spanId: i.toString(16).padStart(16, '0'), name: `s${i}`, kind: 0, startMs: 0, endMs: 1, attributes: {}, events: [], droppedEventsCount: 0, resource: {}, scope: 't' });
    capture.addSpans([span(1), span(2), span(3), span(4), span(5), span(1)], 'otlp');
    await capture.shutdown();
    const e = ring.get(T)!.events.filter((x) => x.stage === 'capture');
    expect(e.slice(0, 2)).toEqual([expect.objectContaining({ outcome: 'dropped', reason: 'max_spans_per_trace', count: 3 }), expect.objectContaining({ outcome: 'duplicate', reason: 'duplicate_span' })]);
    expect(e[0]!.detail).toContain('capture.maxSpansPerTrace');
  });

  it('exposes the trail\'s size and its evictions as series, and is off at maxTraces 0', async () => {
    const registry = new Registry();
    const ring = createTrail(loadConfig({ env: {}, overrides: { trail: { maxTraces: 2 } } }), registry)!;
    for (let i = 0; i < 5; i++) ring.record(`${i}`.padStart(32, '0'), { stage: 'spans', outcome: 'received' });
    const text = await registry.metrics();
    expect(text).toContain('ragwatch_trail_traces{kind="held"} 2');
    expect(text).toContain('ragwatch_trail_traces{kind="capacity"} 2');
    expect(text).toContain('ragwatch_trail_evicted_total 3');
    expect(createTrail(loadConfig({ env: {}, overrides: { trail: { maxTraces: 0 } } }))).toBeUndefined();
  });
});
