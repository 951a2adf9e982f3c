/**
 * Streams of score records built from the scores the embedded judge really gives (the committed
 * fixture `tests/fixtures/halueval-embedded-scores.json`, made by `scripts/halueval-scores.ts` from
 * HaluEval's development set): each answer draws the scores of a random right or hallucinated
 * answer, so a hallucinated answer is flagged only as often as the judge flags one (about 60 %),
 * and some answers have no `grounding_lexical` at all (skipped, as live).
 */
import { readFileSync } from 'node:fs';
import type { ScoreRecord } from '../../src/triplet.ts';
import { rng } from './rng.ts';

type Scores = ScoreRecord['scores'];
const FIXTURE = JSON.parse(readFileSync(new URL('../fixtures/halueval-embedded-scores.json', import.meta.url), 'utf8')) as { right: Scores[]; hallucinated: Scores[] };
let localFixture: typeof FIXTURE | undefined;
/**
 * The local judge's scores of the development file (`tests/fixtures/halueval-local-scores.json`, made by
 * `scripts/local-judge-report.ts --fixture`): claim_support and grounding_lexical of each answer.
 */
function poolOf(judge: 'embedded' | 'local'): typeof FIXTURE {
  if (judge === 'embedded') return FIXTURE;
  return (localFixture ??= JSON.parse(readFileSync(new URL('../fixtures/halueval-local-scores.json', import.meta.url), 'utf8')) as typeof FIXTURE);
}

/** The judge's scores of a random right (`hallucinated` false) or hallucinated answer. */
export function drawScores(random: () => number, hallucinated: boolean, judge: 'embedded' | 'local' = 'embedded'): Scores {
  const fixture = poolOf(judge);
  const pool = hallucinated ? fixture.hallucinated : fixture.right;
  return pool[Math.floor(random() * pool.length)]!;
}

/** Shares of a pool's answers the judge flags (grounding_lexical ≤ cut), scores above the cut, or skips. */
function poolOutcomes(pool: Scores[], cut: number): { flagged: number; good: number; skipped: number } {
  const flagged = pool.filter((s) => s.grounding_lexical !== undefined && s.grounding_lexical <= cut).length / pool.length;
  const skipped = pool.filter((s) => s.grounding_lexical === undefined).length / pool.length;
  return { flagged, good: 1 - flagged - skipped, skipped };
}

/** Share of answers the judge flags (grounding_lexical ≤ cut) among those it scores, for a hallucinated share `h`. */
export function flaggedShare(h: number, cut = 0.8): number {
  const share = (pool: Scores[]) => {
    const o = poolOutcomes(pool, cut);
    return o.flagged / (o.flagged + o.good);
  };
  return h * share(FIXTURE.hallucinated) + (1 - h) * share(FIXTURE.right);
}

/**
 * Per answer of a stream with hallucinated share `h`: the probabilities that the judge flags it
 * (grounding_lexical ≤ cut), scores it above the cut, or skips the metric — the whole of what one
 * answer tells about `h` on this metric.
 */
export function outcomeShares(h: number, cut = 0.8): { flagged: number; good: number; skipped: number } {
  const bad = poolOutcomes(FIXTURE.hallucinated, cut);
  const right = poolOutcomes(FIXTURE.right, cut);
  return { flagged: h * bad.flagged + (1 - h) * right.flagged, good: h * bad.good + (1 - h) * right.good, skipped: h * bad.skipped + (1 - h) * right.skipped };
}

/** One answer of a simulated stream: its time and the slice it belongs to. */
export interface StreamAnswer {
  ms: number;
  release: string;
  route: string;
  model?: string;
}

/** What a simulated service looks like at time `ms` (from the start): which release an answer goes to, and its hallucinated share. */
export interface Traffic {
  /** Answers per second, judged. */
  ratePerS: number;
  /** The release of an answer drawn with `u` ∈ [0,1) at `ms` since the start. */
  release(u: number, ms: number): string;
  /** Share of hallucinated answers of `release` (and `route`) at `ms` since the start. */
  hallucinated(release: string, ms: number, route: string): number;
  /** Routes, equally likely. Default one route, `/ask`. */
  routes?: readonly string[];
  /** Generation models, equally likely. Default none. */
  models?: readonly string[];
  /** Service name. Default `rag`. */
  service?: string;
}

/** Score records of `minutes` of Poisson traffic from `startMs`, in time order, drawing real scores. */
export function realStream(seed: number, startMs: number, minutes: number, t: Traffic, judge: 'embedded' | 'local' = 'embedded'): Array<{ ms: number; record: ScoreRecord }> {
  const random = rng(seed);
  const out: Array<{ ms: number; record: ScoreRecord }> = [];
  const routes = t.routes ?? ['/ask'];
  const end = startMs + minutes * 60_000;
  for (let ms = startMs; ; ) {
    ms += (-Math.log(1 - random()) / t.ratePerS) * 1000;
    if (ms >= end) return out;
    const at = Math.floor(ms);
    const release = t.release(random(), at - startMs);
    const route = routes[Math.floor(random() * routes.length)]!;
    const model = t.models ? t.models[Math.floor(random() * t.models.length)] : undefined;
    const scores = drawScores(random, random() < t.hallucinated(release, at - startMs, route), judge);
    const record: ScoreRecord = {
      tripletId: `t${out.length}`, traceId: 't', service: t.service ?? 'rag', route, release, stratum: 'all', weight: 1, timestamp: new Date(at).toISOString(),
      judge: { kind: judge }, scores, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 },
    };
    if (model !== undefined) record.model = model;
    out.push({ ms: at, record });
  }
}
