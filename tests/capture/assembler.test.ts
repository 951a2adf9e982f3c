/**
 * Trace assembly: out-of-order spans across batches, idle and max-age closing, late children,
 * requests split over traces (join attribute, links), and every bound counted.
 */
import { describe, expect, it } from 'vitest';
import { TraceAssembler, type AssemblerDropReason, type AssemblerOptions } from '../../src/capture/assembler.ts';
import { buildTriplets } from '../../src/capture/build-triplets.ts';
import { DEFAULT_MAPPERS } from '../../src/capture/mappers/index.ts';
import type { Attributes, CapturedLog, CapturedSpan } from '../../src/capture/types.ts';

let seq = 0;
function span(traceId: string, attributes: Attributes = {}, extra: Partial<CapturedSpan> = {}): CapturedSpan {
  const spanId = (++seq).toString(16).padStart(16, '0');
  return { traceId, spanId, name: `s${seq}`, kind: 0, startMs: 1000 + seq, endMs: 1001 + seq, attributes, events: [], droppedEventsCount: 0, resource: {}, scope: 'test', ...extra };
}
const T1 = 'a'.repeat(32);
const T2 = 'b'.repeat(32);
const T3 = 'c'.repeat(32);

function setup(options: Partial<AssemblerOptions> = {}) {
  const groups: Array<{ spans: CapturedSpan[]; logs: CapturedLog[]; contextOnly: ReadonlySet<string> }> = [];
  const drops: AssemblerDropReason[] = [];
  const a = new TraceAssembler(
    { maxTraces: 10, maxSpansPerTrace: 10, traceIdleMs: 100, traceMaxAgeMs: 1000, ...options },
    (spans, logs, contextOnly) => groups.push({ spans, logs, contextOnly }),
    (r) => drops.push(r),
  );
  return { a, groups, drops };
}

describe('TraceAssembler', () => {
  it('groups spans of a trace that arrive out of order across batches, closing after the idle time', () => {
    const { a, groups } = setup();
    const child = span(T1, {}, { parentSpanId: 'f'.repeat(16) });
    a.add(child, 0);
    a.add(span(T2), 10);
    a.add(span(T1), 50);
    a.sweep(120);
    expect(groups.map((g) => g.spans.length)).toEqual([1]); // T2 idle since 10; T1 touched at 50
    a.sweep(150);
    expect(groups[1]!.spans).toContain(child);
    expect(groups[1]!.spans).toHaveLength(2);
    expect(a.size).toBe(0);
  });

  it('closes a trace that keeps receiving spans at traceMaxAgeMs', () => {
    const { a, groups } = setup({ maxSpansPerTrace: 100 });
    for (let t = 0; t <= 1000; t += 50) {
      a.add(span(T1), t);
      a.sweep(t);
    }
    expect(groups.map((g) => g.spans.length)).toEqual([21]);
  });

  it('a child that outlives its parent by more than the idle time is assembled with the earlier spans as context', () => {
    const { a, groups } = setup();
    const parent = span(T1);
    a.add(parent, 0);
    a.sweep(200);
    const late = span(T1, {}, { parentSpanId: parent.spanId });
    a.add(late, 500);
    a.sweep(700);
    expect(groups).toHaveLength(2);
    expect(groups[1]!.spans).toEqual([parent, late]);
    expect([...groups[1]!.contextOnly]).toEqual([parent.spanId]);
  });

  it('joins traces that share a join attribute value', () => {
    const { a, groups } = setup({ joinAttributes: ['rag.request_id'] });
    a.add(span(T1, { 'rag.request_id': 'r-1' }), 0);
    a.add(span(T2, { 'rag.request_id': 'r-1' }), 1);
    a.add(span(T2), 2); // no attribute, but its trace already joined
    a.add(span(T3, { 'rag.request_id': 'r-2' }), 3);
    a.flushAll(10);
    expect(groups.map((g) => g.spans.length).sort()).toEqual([1, 3]);
  });

  it('joins a trace with the traces its spans link to, including spans that arrive later', () => {
    const { a, groups } = setup({ joinLinks: true });
    a.add(span(T1), 0);
    a.add(span(T2, {}, { links: [{ traceId: T1, spanId: '1'.padStart(16, '0') }, { traceId: T3, spanId: '2'.padStart(16, '0') }] }), 1);
    a.add(span(T3), 2);
    a.flushAll(10);
    expect(groups).toHaveLength(1);
    expect(groups[0]!.spans).toHaveLength(3);
  });

  it('release lets a buffered group go unassembled (joined traces too), frees its budget, and gives a late span its context back', () => {
    const { a, groups } = setup({ joinAttributes: ['rag.request_id'], maxBufferedSpans: 3 });
    a.add(span(T1, { 'rag.request_id': 'r-1' }), 0);
    a.add(span(T2, { 'rag.request_id': 'r-1' }), 1);
    a.addLog({ traceId: T2, spanId: '1', timeMs: 0, body: 'x', attributes: {} }, 1);
    expect(a.add(span(T3), 2)).toBe(false); // budget of 3 used up
    expect(a.release([T2, T2])).toBe(3);
    expect(a.isBuffered(T1)).toBe(false);
    expect(a.release([T1])).toBe(0);
    expect(a.add(span(T3), 3)).toBe(true);
    a.flushAll(10);
    expect(groups.map((g) => g.spans.length)).toEqual([1]);

    // A late span of an assembled trace is let go: its earlier spans stay context for the re-read.
    const parent = span(T1);
    a.add(parent, 20);
    a.sweep(200);
    const late = span(T1, {}, { parentSpanId: parent.spanId });
    a.add(late, 300);
    expect(a.release([T1])).toBe(1);
    a.add(late, 310);
    a.sweep(500);
    expect(groups.at(-1)!.spans).toEqual([parent, late]);
    expect([...groups.at(-1)!.contextOnly]).toEqual([parent.spanId]);
  });

  it('counts drops: max_traces, max_spans_per_trace, log_without_trace', () => {
    const { a, drops } = setup({ maxTraces: 1, maxSpansPerTrace: 2 });
    expect(a.add(span(T1), 0)).toBe(true);
    expect(a.add(span(T2), 0)).toBe(false);
    expect(a.addLog({ traceId: T1, spanId: '1', timeMs: 0, body: 'x', attributes: {} }, 0)).toBe(true);
    expect(a.add(span(T1), 0)).toBe(false);
    expect(a.addLog({ timeMs: 0, body: 'x', attributes: {} }, 0)).toBe(false);
    expect(drops).toEqual(['max_traces', 'max_spans_per_trace', 'log_without_trace']);
  });
});

describe('late generation (reassembly through buildTriplets)', () => {
  it('a generation that ends after its trace closed still joins the retrieval; earlier generations are not reported twice', () => {
    const { a, groups } = setup();
    const root = span(T1, { 'openinference.span.kind': 'CHAIN' }, { startMs: 0, endMs: 10 });
    const retriever = span(T1, { 'openinference.span.kind': 'RETRIEVER', 'input.value': 'q?', 'retrieval.documents.0.document.content': 'doc' }, { parentSpanId: root.spanId, startMs: 1, endMs: 2 });
    const first = span(T1, { 'openinference.span.kind': 'LLM', 'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': 'a1' }, { parentSpanId: root.spanId, startMs: 3, endMs: 5 });
    a.add(root, 0);
    a.add(retriever, 0);
    a.add(first, 0);
    a.sweep(200);
    const late = span(T1, { 'openinference.span.kind': 'LLM', 'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': 'a2' }, { parentSpanId: root.spanId, startMs: 6, endMs: 4000 });
    a.add(late, 300);
    a.sweep(500);
    const build = (g: (typeof groups)[number]) => buildTriplets(g.spans, { mappers: DEFAULT_MAPPERS, defaultService: 'svc', maxTextChars: 1000 }, g.logs, g.contextOnly);
    const firstPass = build(groups[0]!);
    const secondPass = build(groups[1]!);
    expect(firstPass.map((o) => o.kind === 'triplet' && o.triplet.response)).toEqual(['a1']);
    expect(secondPass).toHaveLength(1);
    expect(secondPass[0]).toMatchObject({ kind: 'triplet', triplet: { query: 'q?', sources: [{ content: 'doc' }], response: 'a2' } });
  });
});

describe('bounds with late spans', () => {
  it('spans carried over from an earlier assembly do not count against maxSpansPerTrace again', () => {
    const { a, groups, drops } = setup({ maxSpansPerTrace: 2 });
    a.add(span(T1), 0);
    a.add(span(T1), 0);
    a.sweep(200);
    expect(a.add(span(T1), 300)).toBe(true);
    a.sweep(500);
    expect(drops).toEqual([]);
    expect(groups.map((g) => [g.spans.length, g.contextOnly.size])).toEqual([[2, 0], [3, 2]]);
  });
});
