/**
 * TTFT/TPOT from every known source (reference otel-conventions §5). The real-library tests cover
 * the AI SDK (ms and GenAI seconds) and Langfuse; these pin the remaining shapes and the rules.
 */
import { describe, expect, it } from 'vitest';
import { latencyOf, ttftMs } from '../../src/capture/latency.ts';
import type { Attributes, CapturedEvent, CapturedSpan } from '../../src/capture/types.ts';

function span(attributes: Attributes, events: CapturedEvent[] = [], droppedEventsCount = 0): CapturedSpan {
  return { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), name: 'llm', kind: 2, startMs: 10_000, endMs: 11_000, attributes, events, droppedEventsCount, resource: {}, scope: 's' };
}

describe('ttftMs', () => {
  it.each([
    ['gen_ai.response.time_to_first_chunk (s)', { 'gen_ai.response.time_to_first_chunk': 0.25 }, 250],
    ['gen_ai.client.operation.time_to_first_chunk (s, AI SDK v7)', { 'gen_ai.client.operation.time_to_first_chunk': 0.3 }, 300],
    ['ai.response.msToFirstChunk (ms)', { 'ai.response.msToFirstChunk': 123.5 }, 123.5],
    ['ai.stream.msToFirstChunk (ms, AI SDK ≤3)', { 'ai.stream.msToFirstChunk': 99 }, 99],
    ['time_to_first_token_ms (openai-agents)', { time_to_first_token_ms: 42 }, 42],
    ['langfuse completion_start_time (double-encoded ISO)', { 'langfuse.observation.completion_start_time': JSON.stringify(new Date(10_400).toISOString()) }, 400],
  ])('%s', (_name, attrs, expected) => {
    expect(ttftMs(span(attrs as Attributes))).toBeCloseTo(expected, 6);
  });

  it.each(['First Token Stream Event', 'ai.stream.firstChunk', 'gen_ai.content.completion.chunk', 'llm.content.completion.chunk'])('first-chunk event %s', (name) => {
    expect(ttftMs(span({}, [{ name, timeMs: 10_180, attributes: {} }, { name, timeMs: 10_300, attributes: {} }]))).toBe(180);
  });

  it('an evicted first-chunk event makes TTFT unknown instead of wrong', () => {
    expect(ttftMs(span({}, [{ name: 'gen_ai.content.completion.chunk', timeMs: 10_900, attributes: {} }], 128))).toBeUndefined();
  });

  it('no source → undefined (gen_ai.content.completion is not a first-token marker)', () => {
    expect(ttftMs(span({}, [{ name: 'gen_ai.content.completion', timeMs: 10_900, attributes: {} }]))).toBeUndefined();
  });
});

describe('latencyOf', () => {
  it('TPOT = (generation time − TTFT) / (output tokens − 1), generation time from msToFinish when present', () => {
    const l = latencyOf(span({ 'ai.response.msToFirstChunk': 200, 'ai.response.msToFinish': 800 }), 10, 31);
    expect(l).toEqual({ durationMs: 1000, ttftMs: 200, inputTokens: 10, outputTokens: 31, tpotMs: 20 });
  });

  it('generation time from gen_ai.client.operation.duration (s) when present', () => {
    expect(latencyOf(span({ 'gen_ai.client.operation.time_to_first_chunk': 0.1, 'gen_ai.client.operation.duration': 0.5 }), undefined, 5).tpotMs).toBeCloseTo(100, 6);
  });

  it('no TPOT without TTFT or with fewer than two output tokens', () => {
    expect(latencyOf(span({}), 1, 50).tpotMs).toBeUndefined();
    expect(latencyOf(span({ 'ai.response.msToFirstChunk': 200 }), 1, 1).tpotMs).toBeUndefined();
    expect(latencyOf(span({ 'ai.response.msToFirstChunk': 200 }), 1, undefined).tpotMs).toBeUndefined();
  });
});
