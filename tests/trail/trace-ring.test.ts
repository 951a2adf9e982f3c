import { describe, expect, it } from 'vitest';
import { TraceRing } from '../../src/trail/trace-ring.ts';

const id = (i: number) => i.toString(16).padStart(32, '0');

describe('TraceRing', () => {
  it('keeps each trace’s spans by transport and its decisions in order', () => {
    let now = 1_000;
    const ring = new TraceRing({ maxTraces: 4, now: () => now });
    ring.spans(id(1), 3, 'otlp');
    now = 1_500;
    ring.spans(id(1), 1, 'processor');
    ring.record(id(1), { stage: 'capture', outcome: 'assembled', detail: '4 spans, 1 generation' });
    ring.record(id(1), { stage: 'sampling', outcome: 'not_sampled', reason: 'rate' });
    const t = ring.get(id(1))!;
    expect(t.spans).toEqual({ count: 4, firstMs: 1_000, lastMs: 1_500, bySource: { otlp: 3, processor: 1 } });
    expect(t.events.map((e) => [e.stage, e.outcome, e.reason])).toEqual([
      ['capture', 'assembled', undefined],
      ['sampling', 'not_sampled', 'rate'],
    ]);
    expect(t.firstMs).toBe(1_000);
    expect(t.lastMs).toBe(1_500);
  });

  it('evicts the oldest trace when full, counted, and forgets its response ids', () => {
    const ring = new TraceRing({ maxTraces: 3 });
    for (let i = 1; i <= 5; i++) {
      ring.record(id(i), { stage: 'capture', outcome: 'assembled' });
      ring.responseId(id(i), `resp-${i}`);
    }
    expect(ring.get(id(1))).toBeUndefined();
    expect(ring.get(id(2))).toBeUndefined();
    expect(ring.get(id(5))).toBeDefined();
    expect(ring.traceOfResponse('resp-1')).toBeUndefined();
    expect(ring.traceOfResponse('resp-4')).toBe(id(4));
    expect(ring.stats()).toMatchObject({ traces: 3, capacity: 3, evicted: 2 });
    expect(ring.recent(10).map((t) => t.traceId)).toEqual([id(5), id(4), id(3)]);
  });

  it('bounds the events of one trace and counts the rest', () => {
    const ring = new TraceRing({ maxTraces: 2, maxEventsPerTrace: 3 });
    for (let i = 0; i < 10; i++) ring.record(id(1), { stage: 'judge', outcome: 'retry' });
    const t = ring.get(id(1))!;
    expect(t.events).toHaveLength(3);
    expect(t.eventsDropped).toBe(7);
    expect(ring.stats().eventsDropped).toBe(7);
  });

  it('says which trace is the oldest held, before and after the ring wraps', () => {
    let now = 0;
    const ring = new TraceRing({ maxTraces: 2, now: () => now });
    expect(ring.stats().oldestMs).toBeUndefined();
    now = 10;
    ring.record(id(1), { stage: 'spans', outcome: 'received' });
    now = 20;
    ring.record(id(2), { stage: 'spans', outcome: 'received' });
    expect(ring.stats().oldestMs).toBe(10);
    now = 30;
    ring.record(id(3), { stage: 'spans', outcome: 'received' });
    expect(ring.stats().oldestMs).toBe(20);
  });

  it('coalesces a decision repeated in a row (spans dropped one by one) into one event with a count', () => {
    const ring = new TraceRing({ maxEventsPerTrace: 3 });
    for (let i = 0; i < 50; i++) ring.record(id(1), { stage: 'capture', outcome: 'dropped', reason: 'max_spans_per_trace' }, true);
    ring.record(id(1), { stage: 'capture', outcome: 'assembled' }, true);
    ring.record(id(1), { stage: 'capture', outcome: 'dropped', reason: 'max_spans_per_trace' }, true);
    const t = ring.get(id(1))!;
    expect(t.events.map((e) => [e.outcome, e.count])).toEqual([
      ['dropped', 50],
      ['assembled', undefined],
      ['dropped', undefined],
    ]);
    expect(t.eventsDropped).toBe(0);
  });

  it('hands out copies: a page cannot change what the ring holds', () => {
    const ring = new TraceRing();
    ring.record(id(1), { stage: 'capture', outcome: 'assembled' });
    ring.get(id(1))!.events.push({ stage: 'judge', outcome: 'judged', timeMs: 0 });
    expect(ring.get(id(1))!.events).toHaveLength(1);
  });

  it('keeps nothing with maxTraces 0 and never throws on odd input', () => {
    const off = new TraceRing({ maxTraces: 0 });
    off.record(id(1), { stage: 'capture', outcome: 'assembled' });
    expect(off.get(id(1))).toBeUndefined();
    expect(off.recent(5)).toEqual([]);
    const ring = new TraceRing({ maxTraces: 2 });
    expect(() => ring.record(undefined as unknown as string, { stage: 'capture', outcome: 'x' })).not.toThrow();
    expect(ring.stats().traces).toBe(0);
  });

  it('records in constant time: 200k decisions into a full ring stay flat', () => {
    const ring = new TraceRing({ maxTraces: 1_000 });
    const t0 = performance.now();
    for (let i = 0; i < 200_000; i++) ring.record(id(i), { stage: 'sampling', outcome: 'sampled', reason: 'rate' });
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(ring.stats()).toMatchObject({ traces: 1_000, evicted: 199_000 });
  });
});
