/**
 * The trail (docs/answers.md): what happened to each recent trace, stage by stage — spans received,
 * assembled or incomplete, sampled or not, queued, judged or failed, exported — kept in a bounded ring
 * of the last N traces so that a person holding one trace id can ask why its answer was judged so, or
 * not at all. Stages never import this room's ring: a role hands them callbacks that record into a
 * {@link TrailRecorder}. Recording is O(1), synchronous, does no I/O and never throws.
 * @module
 */

/** The stages of an answer's way through ragwatch, in order. */
export const TRAIL_STAGES = ['spans', 'capture', 'sampling', 'queue', 'judge', 'export'] as const;
export type TrailStage = (typeof TRAIL_STAGES)[number];

/**
 * One decision about a trace at one stage. Codes only (rule names, error codes, counts): never the
 * question, the sources or the response, so the trail needs no redaction of its own.
 */
export interface TrailEvent {
  stage: TrailStage;
  /**
   * What happened, a short stable word: `received`; `assembled`, `incomplete`, `no_generation`;
   * `sampled`, `not_sampled`; `queued`, `dropped`; `judged`, `retry`, `failed`, `shed`; `sent`,
   * `failed`, `dropped`.
   */
  outcome: string;
  /** Which rule, code or part decided (`rate`, a rule's name, `budget_triplets`, `RAGWATCH_JUDGE_MALFORMED`, `sources`…). */
  reason?: string;
  /** One line for people: what was missing and why, the Kafka topic/partition/offset, the judge and attempts… */
  detail?: string;
  /** When, milliseconds since the epoch. */
  timeMs: number;
  /** The generation (triplet) it concerns, when a trace has several. */
  tripletId?: string;
  /** How many times in a row it happened, when recorded with `coalesce` (spans dropped one by one). */
  count?: number;
}

/** Spans of a trace received so far, by transport (`otlp`, `processor`, `kafka`). */
export interface SpansReceived {
  count: number;
  firstMs: number;
  lastMs: number;
  /** Transport → spans. */
  bySource: Record<string, number>;
}

/** Everything the trail holds about one trace. */
export interface TraceTrail {
  traceId: string;
  /** When the trace first reached the trail, milliseconds since the epoch. */
  firstMs: number;
  lastMs: number;
  spans?: SpansReceived;
  /** Decisions in the order they were recorded (bounded by `trail.maxEventsPerTrace`). */
  events: TrailEvent[];
  /** Events not kept beyond `trail.maxEventsPerTrace`. */
  eventsDropped: number;
  /** The provider's response ids of its answers (`gen_ai.response.id`), to find it by `?responseId=`. */
  responseIds: string[];
}

/** Where stages' decisions go. Never throws, never waits, O(1). */
export interface TrailRecorder {
  /** Spans of `traceId` arrived through `source` (`otlp`, `processor`, `kafka`). */
  spans(traceId: string, count: number, source: string, nowMs?: number): void;
  /**
   * A decision about `traceId`. With `coalesce`, an event equal in stage, outcome and reason to the
   * trace's last one only raises that one's `count` (a decision repeated per span takes one place).
   */
  record(traceId: string, event: Omit<TrailEvent, 'timeMs' | 'count'> & { timeMs?: number }, coalesce?: boolean): void;
  /** The provider's response id of an answer of `traceId`. */
  responseId(traceId: string, responseId: string): void;
}

/** What the ring holds, for the page of a trace it has not seen and for `/api/status`. */
export interface TrailStats {
  /** Traces held now. */
  traces: number;
  /** `trail.maxTraces`. */
  capacity: number;
  /** Oldest trace held, milliseconds since the epoch (undefined when empty). */
  oldestMs: number | undefined;
  /** Traces evicted to make room (the oldest first). */
  evicted: number;
  /** Events not kept because their trace held `trail.maxEventsPerTrace` already. */
  eventsDropped: number;
}

/** What the pages read. */
export interface TrailView {
  /** The trail of `traceId`, if still held (a copy). */
  get(traceId: string): TraceTrail | undefined;
  /** The trace of an answer by its provider's response id, if still held. */
  traceOfResponse(responseId: string): string | undefined;
  /** The most recent traces, newest first (at most `limit`). */
  recent(limit: number): TraceTrail[];
  stats(): TrailStats;
}
