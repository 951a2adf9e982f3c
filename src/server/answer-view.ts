/**
 * Everything a process knows about one answer (docs/answers.md), as the page `/answers/<traceId>` and
 * `GET /api/answers/<traceId>` serve it: the trail stage by stage, the judged answers kept in the
 * embedded store with each metric's score and threshold, the users' feedback and the reviewers' labels.
 * A trace this process never saw says so, with what it did see recently. Read-only; text as redacted
 * at capture.
 * @module
 */
import type { FeedbackItem } from '../feedback/types.ts';
import type { Label } from '../store/review-store.ts';
import type { StoredAnswer } from '../store/answer-store.ts';
import { TRAIL_STAGES, type TraceTrail, type TrailEvent, type TrailStage, type TrailStats, type TrailView } from '../trail/types.ts';

/** The judged answers a process keeps (the embedded store's `answers` table). */
export interface AnswerLookup {
  forTrace(traceId: string): StoredAnswer[];
  traceOfResponse(responseId: string): string | undefined;
}

/** What the answer page reads; every part optional (a role holds what it holds). */
export interface AnswerSources {
  /** The process's trail of recent traces. */
  trail?: TrailView | undefined;
  /** Judged answers in the embedded store (a scoring process). */
  answers?: AnswerLookup | undefined;
  /** End users' feedback on a trace. */
  feedbackOf?: ((traceId: string) => readonly FeedbackItem[]) | undefined;
  /** Reviewers' labels of an answer (calibration), by triplet id. */
  labelsOf?: ((tripletId: string) => readonly Label[]) | undefined;
  /** Alert threshold of each metric. */
  thresholds?: Readonly<Record<string, number>> | undefined;
  /** Which role this process plays (`start`, `collector`, `assembler`, `scorer`): what it can know (docs/answers.md#split-mode). */
  role: 'start' | 'collector' | 'assembler' | 'scorer';
}

/** One stage of the trail, summarised: its last decision (and how many it made). */
export interface StageSummary {
  stage: TrailStage;
  outcome: string | null;
  reason: string | null;
  detail: string | null;
  events: number;
}

/** One judged answer as served: the stored answer, and per metric its score, threshold and whether it is flagged. */
export interface AnswerJson extends StoredAnswer {
  metrics: Array<{ metric: string; judge: string; score: number; threshold: number | null; flagged: boolean }>;
  labels: Label[];
}

/** The page's data, and the JSON of `GET /api/answers/<traceId>`. */
export interface AnswerViewJson {
  traceId: string;
  /** True when this process holds anything about the trace. */
  seen: boolean;
  /** The stage whose decision ended the answer's way (`judge`, `sampling`, `capture`…), and that decision. */
  verdict: { stage: TrailStage; outcome: string; reason: string | null; detail: string | null } | null;
  stages: StageSummary[];
  trail: TraceTrail | null;
  answers: AnswerJson[];
  feedback: FeedbackItem[];
  role: AnswerSources['role'];
  /** What this process cannot know, in words (split mode). */
  partial: string | null;
  /** For a trace not seen: what the trail holds, and its latest traces with their last decision. */
  recent: { stats: TrailStats; traces: Array<{ traceId: string; lastMs: number; stage: TrailStage | null; outcome: string | null; reason: string | null }> } | null;
}

const PARTIAL: Record<AnswerSources['role'], string | null> = {
  start: null,
  collector: 'This collector holds the first stages only (spans, capture, sampling, queueing to Kafka); the scorer that judged the answer holds the judge and export stages and the judged answer.',
  assembler: 'This assembler holds capture, sampling and queueing to Kafka for the traces of its partitions of the spans topic; the spans arrived at a collector, and the judge and export stages and the judged answer are a scorer\'s.',
  scorer: 'This scorer holds the judge and export stages and the answers it judged; spans, capture and sampling happened in a collector or assembler (docs/answers.md#split-mode).',
};

/**
 * The decision that ended the way: the last event of the latest stage reached up to the judge. The
 * export follows the verdict (each writer's settlement is in the trail), so it is the verdict only
 * when nothing before it was recorded here (a scorer replica that lost the earlier events).
 */
function verdictOf(events: readonly TrailEvent[]): AnswerViewJson['verdict'] {
  let best: TrailEvent | undefined;
  const rank = (e: TrailEvent) => (e.stage === 'export' ? -1 : TRAIL_STAGES.indexOf(e.stage));
  for (const e of events) if (!best || rank(e) >= rank(best)) best = e;
  return best ? { stage: best.stage, outcome: best.outcome, reason: best.reason ?? null, detail: best.detail ?? null } : null;
}

function stagesOf(trail: TraceTrail | undefined): StageSummary[] {
  return TRAIL_STAGES.map((stage) => {
    const events = trail?.events.filter((e) => e.stage === stage) ?? [];
    if (stage === 'spans' && trail?.spans) {
      const s = trail.spans;
      const by = Object.entries(s.bySource).map(([k, n]) => `${n} over ${k}`).join(', ');
      return { stage, outcome: 'received', reason: Object.keys(s.bySource).join(','), detail: `${s.count} span${s.count === 1 ? '' : 's'} (${by}), first at ${new Date(s.firstMs).toISOString()}, last at ${new Date(s.lastMs).toISOString()}`, events: s.count };
    }
    if (stage === 'export' && events.length > 1) {
      // Each writer settles on its own: all of them, the worst outcome first.
      const worst = events.find((e) => e.outcome === 'dropped') ?? events.find((e) => e.outcome === 'failed') ?? events[events.length - 1]!;
      return { stage, outcome: worst.outcome, reason: [...new Set(events.map((e) => e.reason ?? ''))].filter((r) => r !== '').join(','), detail: events.map((e) => e.detail ?? e.outcome).join(' · '), events: events.length };
    }
    const last = events[events.length - 1];
    const detail = last?.detail !== undefined ? `${last.detail}${last.count !== undefined ? ` (×${last.count})` : ''}` : null;
    return { stage, outcome: last?.outcome ?? null, reason: last?.reason ?? null, detail, events: events.length };
  });
}

function answerJson(a: StoredAnswer, sources: AnswerSources): AnswerJson {
  const thresholds = sources.thresholds ?? {};
  const metrics = Object.entries(a.record.scores)
    .filter((e): e is [string, number] => e[1] !== undefined)
    .map(([metric, score]) => {
      const threshold = thresholds[metric] ?? null;
      return { metric, judge: a.record.judge.kind, score, threshold, flagged: threshold !== null && score <= threshold };
    });
  return { ...a, metrics, labels: [...(sources.labelsOf?.(a.record.tripletId) ?? [])] };
}

/** The trace of an answer by the provider's response id: the trail first, then the store. */
export function traceOfResponse(responseId: string, sources: AnswerSources): string | undefined {
  return sources.trail?.traceOfResponse(responseId) ?? sources.answers?.traceOfResponse(responseId);
}

/** Everything this process knows about `traceId`. Never throws on a missing part. */
export function answerView(traceId: string, sources: AnswerSources): AnswerViewJson {
  const trail = sources.trail?.get(traceId);
  const answers = (sources.answers?.forTrace(traceId) ?? []).map((a) => answerJson(a, sources));
  const feedback = [...(sources.feedbackOf?.(traceId) ?? [])];
  const seen = trail !== undefined || answers.length > 0;
  let verdict = trail ? verdictOf(trail.events) : null;
  if (!verdict && answers.length > 0) {
    const flagged = answers.flatMap((a) => a.metrics.filter((m) => m.flagged).map((m) => `${m.metric} ${m.score.toFixed(2)} ≤ ${m.threshold}`));
    verdict = { stage: 'judge', outcome: flagged.length > 0 ? 'flagged' : 'judged', reason: answers[0]!.record.judge.kind, detail: flagged.length > 0 ? `flagged: ${flagged.join(', ')}` : 'judged (the trail of this trace is no longer held; the judged answer is)' };
  }
  const recent = seen
    ? null
    : {
        stats: sources.trail?.stats() ?? { traces: 0, capacity: 0, oldestMs: undefined, evicted: 0, eventsDropped: 0 },
        traces: (sources.trail?.recent(10) ?? []).map((t) => {
          const last = verdictOf(t.events);
          return { traceId: t.traceId, lastMs: t.lastMs, stage: last?.stage ?? (t.spans ? 'spans' : null), outcome: last?.outcome ?? (t.spans ? 'received' : null), reason: last?.reason ?? null };
        }),
      };
  return { traceId, seen, verdict, stages: stagesOf(trail), trail: trail ?? null, answers, feedback, role: sources.role, partial: PARTIAL[sources.role], recent };
}
