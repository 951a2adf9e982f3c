/**
 * Wires the stages to the trail (docs/answers.md): each stage reports through a callback it was given,
 * and the functions here turn what it reports into {@link TrailEvent}s — codes and counts, never the
 * question, sources or response. Every one is O(1) per item, synchronous, and never throws.
 * @module
 */
import type { CapturedSpan, GenerationOutcome, SpanSource } from '../capture/types.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import type { ExportSettled } from '../evaluation-export/batch-writer.ts';
import { metricRegistryOf } from '../metric-registry.ts';
import type { SamplingDecision } from '../sampling/types.ts';
import { TraceRing } from '../trail/trace-ring.ts';
import type { TrailRecorder, TrailView } from '../trail/types.ts';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { HandleContext, HandleResult, TripletHandler } from '../transport/types.ts';
import type { SampledTriplet, ScoreRecord, Triplet } from '../triplet.ts';

/** The trail of a process from `config.trail` (its series on `registry`), or undefined when it is off (`maxTraces: 0`). */
export function createTrail(config: RagwatchConfig, registry?: Registry): TraceRing | undefined {
  const t = config.trail;
  if (t.maxTraces === 0) return undefined;
  const ring = new TraceRing({ maxTraces: t.maxTraces, maxEventsPerTrace: t.maxEventsPerTrace });
  if (registry) registerTrailMetrics(registry, ring);
  return ring;
}

/** Spans received, by trace: one ring update per span (O(1) each). */
export function traceSpans(trail: TrailRecorder, spans: readonly CapturedSpan[], source: SpanSource): void {
  try {
    const now = Date.now();
    for (const s of spans) trail.spans(s.traceId, 1, source, now);
  } catch {
    // The trail never stops ingest.
  }
}

/** A span name as the trail shows it: instrumentations name spans by operation, but nothing stops an app from putting text in one, so it is cut short. */
const spanName = (name: string | undefined) => JSON.stringify((name ?? '').length > 40 ? `${name!.slice(0, 40)}…` : (name ?? ''));

/** What capture made of a generation: a triplet, or incomplete and what was missing (with the note, if any). */
export function traceOutcome(trail: TrailRecorder, outcome: GenerationOutcome): void {
  if (outcome.kind === 'triplet') {
    const t = outcome.triplet;
    const from = outcome.explain?.sourcesSource;
    // No span ids in the line (the triplet id names the generation): lines that repeat are kept once.
    trail.record(t.traceId, { stage: 'capture', outcome: 'assembled', reason: t.convention, tripletId: t.id, detail: `generation ${spanName(outcome.explain?.spanName)} (${t.convention}): ${t.sources.length} source${t.sources.length === 1 ? '' : 's'}${from ? ` from ${from.replace(/ [0-9a-f]{8,16} /, ' ')}` : ''}` });
    if (t.responseId !== undefined) trail.responseId(t.traceId, t.responseId);
    return;
  }
  const note = outcome.explain?.sourcesNote;
  const missing = outcome.missing.join(', ');
  trail.record(outcome.traceId, { stage: 'capture', outcome: 'incomplete', reason: outcome.missing[0] ?? 'unknown', detail: `generation ${spanName(outcome.explain?.spanName)} (${outcome.mapper}), span ${outcome.spanId}: missing ${missing}${note ? ` — ${note}` : ''}` });
}

const DROP_WHY: Readonly<Record<string, string>> = {
  max_traces: 'the trace buffer held capture.maxTraces traces already',
  max_spans_per_trace: 'the trace held capture.maxSpansPerTrace spans already',
  max_buffered_spans: 'the buffer held capture.maxBufferedSpans spans already',
  duplicate_span: 'the same span arrived twice (an exporter\'s retry): the copy is ignored',
  log_without_trace: 'a log record without a trace id',
};

/** A span (or log record) of the trace that capture's buffer dropped; repeats take one place, counted. */
export function traceDropped(trail: TrailRecorder, traceId: string, reason: string): void {
  trail.record(traceId, { stage: 'capture', outcome: reason === 'duplicate_span' ? 'duplicate' : 'dropped', reason, detail: `span not buffered: ${DROP_WHY[reason] ?? reason} (ragwatch_triplets_dropped_total{stage="capture"})` }, true);
}

/** A trace assembled: with no generation span, say so and name a few of its spans. */
export function traceAssembled(trail: TrailRecorder, traceId: string, spans: number, generations: number, names: readonly string[]): void {
  if (generations > 0) return;
  trail.record(traceId, { stage: 'capture', outcome: 'no_generation', reason: 'generation', detail: `${spans} span${spans === 1 ? '' : 's'} assembled, no generation (LLM) span among them (${names.map(spanName).join(', ')}): nothing to judge in this trace` });
}

/** Which sampler decided, in words (`rate`, `stratum_rate`, `stratum_quota`, a rule's name, the conversation bound, probes). */
function samplingDetail(rule: string, triplet: Triplet, sampling?: SampledTriplet['sampling']): string {
  const who =
    rule === 'rate' ? 'the sampling rate (sampling.rate)'
    : rule === 'stratum_rate' ? 'its stratum\'s rate (sampling.strata.rates)'
    : rule === 'stratum_quota' ? 'its stratum\'s quota per minute (sampling.strata.quotasPerMinute)'
    : rule === 'max_turns_per_conversation' ? 'the conversation bound (sampling.maxTurnsPerConversation)'
    : rule === 'probe' ? 'probe traffic (always judged)'
    : `rule "${rule}" (sampling.rules)`;
  const conv = triplet.conversation?.id !== undefined ? '; its conversation is sampled whole (by conversation id)' : '';
  return sampling ? `sampled by ${who}, stratum ${sampling.stratum}, weight ${Number(sampling.weight.toFixed(3))}${conv}` : `not sampled by ${who}${conv}`;
}

/** The sampler's decision about a triplet. */
export function traceSampling(trail: TrailRecorder, triplet: Triplet, decision: SamplingDecision | { error: true }): void {
  if ('error' in decision) {
    trail.record(triplet.traceId, { stage: 'sampling', outcome: 'not_sampled', reason: 'sampler_error', tripletId: triplet.id, detail: 'the sampler failed on this triplet (counted in ragwatch_triplets_dropped_total{stage="sampling"})' });
    return;
  }
  if (decision.sampled) trail.record(triplet.traceId, { stage: 'sampling', outcome: 'sampled', reason: decision.sampling.rule, tripletId: triplet.id, detail: samplingDetail(decision.sampling.rule, triplet, decision.sampling) });
  else trail.record(triplet.traceId, { stage: 'sampling', outcome: 'not_sampled', reason: decision.rule, tripletId: triplet.id, detail: samplingDetail(decision.rule, triplet) });
}

/** A sampled triplet handed to the transport (`where`: `memory queue`, `kafka topic …`), or dropped there. */
export function traceQueued(trail: TrailRecorder, triplet: Triplet, accepted: boolean, where: string): void {
  if (accepted) trail.record(triplet.traceId, { stage: 'queue', outcome: 'queued', reason: where.startsWith('kafka') ? 'kafka' : 'memory', tripletId: triplet.id, detail: where });
  else trail.record(triplet.traceId, { stage: 'queue', outcome: 'dropped', reason: 'queue_full', tripletId: triplet.id, detail: `${where} refused it (full or shutting down; ragwatch_triplets_dropped_total{stage="transport"})` });
}

/** The metrics of a record at or below their threshold, as `metric 0.42 ≤ 0.7`. */
function flaggedOf(record: ScoreRecord, isFailing: (metric: string, score: number) => boolean, threshold: (metric: string) => number | undefined): string[] {
  const out: string[] = [];
  for (const [m, v] of Object.entries(record.scores)) {
    if (v === undefined || !isFailing(m, v)) continue;
    const t = threshold(m);
    out.push(`${m} ${v.toFixed(2)}${t !== undefined ? ` ≤ ${t}` : ''}`);
  }
  return out;
}

/** What `isFailing` and `threshold` the judge events use to say `flagged`. */
export interface FlagRule {
  isFailing: (metric: string, score: number) => boolean;
  threshold: (metric: string) => number | undefined;
}

/** Wraps the scorer's handler: where the triplet was read from, and whether it was judged, retried, failed or shed. */
export function tracedHandler(trail: TrailRecorder, handle: TripletHandler, flag: FlagRule): TripletHandler {
  return async (triplet: SampledTriplet, context?: HandleContext): Promise<HandleResult> => {
    const attempt = context?.attempt ?? 1;
    const src = context?.source;
    if (src && attempt === 1) trail.record(triplet.traceId, { stage: 'queue', outcome: 'delivered', reason: 'kafka', tripletId: triplet.id, detail: `read from kafka topic ${src.topic} partition ${src.partition} offset ${src.offset}` });
    const result = await handle(triplet, context);
    try {
      traceResult(trail, triplet, result, attempt, flag);
    } catch {
      // The trail never changes a result.
    }
    return result;
  };
}

function traceResult(trail: TrailRecorder, triplet: SampledTriplet, result: HandleResult, attempt: number, flag: FlagRule): void {
  const base = { stage: 'judge' as const, tripletId: triplet.id };
  const tries = `${attempt} attempt${attempt === 1 ? '' : 's'}`;
  switch (result.status) {
    case 'scored': {
      const r = result.record;
      const judge = r ? `${r.judge.kind} judge${r.judge.model ? ` (${r.judge.model})` : ''}` : 'judge';
      const flagged = r ? flaggedOf(r, flag.isFailing, flag.threshold) : [];
      const usage = r ? `; ${r.usage.calls} call${r.usage.calls === 1 ? '' : 's'}, ${r.usage.inputTokens + r.usage.outputTokens} tokens, ${Math.round(r.usage.durationMs)} ms` : '';
      trail.record(triplet.traceId, { ...base, outcome: flagged.length > 0 ? 'flagged' : 'judged', reason: r?.judge.kind ?? 'judge', detail: `${flagged.length > 0 ? `flagged: ${flagged.join(', ')}` : 'judged, no metric at or below its threshold'} — ${judge}, ${tries}${usage}` });
      return;
    }
    case 'retry':
      trail.record(triplet.traceId, { ...base, outcome: 'retry', reason: result.reason, detail: `attempt ${attempt} failed (${result.reason}); retried after ${result.retryAfterMs} ms` });
      return;
    case 'failed':
      trail.record(triplet.traceId, { ...base, outcome: 'failed', reason: result.reason, detail: `judge failed after ${result.attempts ?? attempt} attempt${(result.attempts ?? attempt) === 1 ? '' : 's'}: ${result.reason}${result.error?.message ? ` — ${result.error.message.slice(0, 200)}` : ''} (to the DLQ with Kafka; counted in ragwatch_triplets_failed_total)` });
      return;
    case 'dropped': {
      const shed = result.reason.startsWith('budget_');
      const detail = shed ? `shed by the scoring budget (${result.reason === 'budget_triplets' ? 'sampling.budget.maxTripletsPerMinute' : 'sampling.budget.maxTokensPerHour'}): not judged` : `dropped by the scorer: ${result.reason}`;
      trail.record(triplet.traceId, { ...base, outcome: shed ? 'shed' : 'dropped', reason: result.reason, detail });
      return;
    }
  }
}

/** The evaluation export's settlements, one event per trace and writer. */
export function exportSettled(trail: TrailRecorder): ExportSettled {
  return (writer, results, settlement) => {
    const byTrace = new Map<string, number>();
    for (const r of results) byTrace.set(r.traceId, (byTrace.get(r.traceId) ?? 0) + 1);
    for (const [traceId, n] of byTrace) {
      const what = `${n} evaluation result${n === 1 ? '' : 's'} to ${writer}`;
      if (settlement.status === 'sent') trail.record(traceId, { stage: 'export', outcome: 'sent', reason: writer, detail: `${what}: accepted` });
      else trail.record(traceId, { stage: 'export', outcome: settlement.status, reason: settlement.reason, detail: `${what}: ${settlement.status} (${settlement.reason}; ragwatch_evaluation_export_dropped_total{writer="${writer}"})` });
    }
  };
}

/** Flagged as the evaluation export labels `fail`: at or below the metric's alert threshold (a metric alerting on calibrated scores: never). */
export function flagRuleOf(config: RagwatchConfig): FlagRule {
  const registry = metricRegistryOf(config);
  const configured = config.alerts.metrics as Readonly<Record<string, { threshold: number; on: string } | undefined>>;
  // As evaluation-export's failingByThreshold, without loading the export's writers into a process that has none.
  const threshold = (m: string) => {
    const a = configured[m];
    return a ? (a.on === 'raw' ? a.threshold : undefined) : registry.get(m)?.alertDefaults.threshold;
  };
  return {
    isFailing: (m, score) => {
      const cut = threshold(m);
      return cut !== undefined && score <= cut;
    },
    threshold,
  };
}

/** The trail's own series on `registry`: traces held, traces evicted, decisions not kept (read at scrape time). */
export function registerTrailMetrics(registry: Registry, ring: TrailView): void {
  const registers = [registry];
  const stats = () => ring.stats();
  new Gauge({
    name: 'ragwatch_trail_traces',
    help: 'Traces whose decisions the trail holds (the answer page, docs/answers.md), by kind: held, capacity (trail.maxTraces).',
    labelNames: ['kind'],
    registers,
    collect() {
      const s = stats();
      this.set({ kind: 'held' }, s.traces);
      this.set({ kind: 'capacity' }, s.capacity);
    },
  });
  let evicted = 0;
  let dropped = 0;
  new Counter({
    name: 'ragwatch_trail_evicted_total',
    help: 'Traces evicted from the trail to make room (the oldest first, trail.maxTraces): their answer pages then show the judged answer only, or nothing.',
    registers,
    collect() {
      const s = stats();
      this.inc(s.evicted - evicted);
      evicted = s.evicted;
    },
  });
  new Counter({
    name: 'ragwatch_trail_events_dropped_total',
    help: 'Decisions not kept because their trace held trail.maxEventsPerTrace already.',
    registers,
    collect() {
      const s = stats();
      this.inc(s.eventsDropped - dropped);
      dropped = s.eventsDropped;
    },
  });
}
