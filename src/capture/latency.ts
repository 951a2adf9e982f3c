/**
 * Latency extraction (DESIGN §6, reference otel-conventions §5): TTFT from every known
 * attribute/event source, TPOT = (generation time − TTFT) / (output tokens − 1).
 * @module
 */
import { num, str } from './attributes.ts';
import type { CapturedSpan } from './types.ts';
import type { Latency } from '../triplet.ts';

const FIRST_CHUNK_EVENTS = new Set([
  'First Token Stream Event',
  'ai.stream.firstChunk',
  'gen_ai.content.completion.chunk',
  'llm.content.completion.chunk',
]);

/**
 * Time to first token in milliseconds, or undefined when the span does not say. `firstTokenAtMs` is
 * the first token's arrival a mapper read out of the span's content (Haystack's
 * `completion_start_time`); it counts only when it falls inside the span.
 */
export function ttftMs(span: CapturedSpan, firstTokenAtMs?: number): number | undefined {
  const a = span.attributes;
  const seconds = num(a, 'gen_ai.response.time_to_first_chunk') ?? num(a, 'gen_ai.client.operation.time_to_first_chunk');
  if (seconds !== undefined) return seconds * 1000;
  const ms = num(a, 'ai.response.msToFirstChunk') ?? num(a, 'ai.stream.msToFirstChunk') ?? num(a, 'time_to_first_token_ms');
  if (ms !== undefined) return ms;
  const completionStart = str(a, 'langfuse.observation.completion_start_time');
  if (completionStart !== undefined) {
    const t = Date.parse(completionStart.replace(/^"+|"+$/g, ''));
    if (Number.isFinite(t)) return Math.max(0, t - span.startMs);
  }
  if (firstTokenAtMs !== undefined && firstTokenAtMs >= span.startMs && firstTokenAtMs <= span.endMs) return firstTokenAtMs - span.startMs;
  // An evicted first-chunk event would make the earliest surviving one wrong: unknown instead.
  if (span.droppedEventsCount > 0) return undefined;
  for (const ev of span.events) {
    if (FIRST_CHUNK_EVENTS.has(ev.name)) return Math.max(0, ev.timeMs - span.startMs);
  }
  return undefined;
}

/** Latency of a generation span, given its token counts (and the first token's arrival, where a mapper read it). */
export function latencyOf(span: CapturedSpan, inputTokens?: number, outputTokens?: number, firstTokenAtMs?: number): Latency {
  const durationMs = Math.max(0, span.endMs - span.startMs);
  const latency: Latency = { durationMs };
  const ttft = ttftMs(span, firstTokenAtMs);
  if (ttft !== undefined) latency.ttftMs = ttft;
  if (inputTokens !== undefined) latency.inputTokens = Math.round(inputTokens);
  if (outputTokens !== undefined) latency.outputTokens = Math.round(outputTokens);
  // Generation time excludes tool execution where the library reports it (AI SDK msToFinish, GenAI client duration).
  const opSeconds = num(span.attributes, 'gen_ai.client.operation.duration');
  const genMs = num(span.attributes, 'ai.response.msToFinish') ?? (opSeconds !== undefined ? opSeconds * 1000 : durationMs);
  if (ttft !== undefined && outputTokens !== undefined && outputTokens > 1 && genMs > ttft) {
    latency.tpotMs = (genMs - ttft) / (outputTokens - 1);
  }
  return latency;
}
