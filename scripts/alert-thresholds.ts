/**
 * Measures the embedded judge's default alert thresholds on HaluEval QA (development set
 * `qa_one_turn.jsonl`; never `qa_multi_turn.jsonl`). For each metric a "good" and a "bad" set of
 * triplets built from the same rows:
 *
 * - `grounding_lexical`: right answer (good) vs hallucinated answer (bad), the knowledge as source;
 * - `context_relevancy`: the row's own knowledge (good) vs the next row's (bad: off-topic retrieval);
 * - `answer_relevancy`: the row's right answer (good) vs the next row's (bad: off-topic answer).
 *
 * The threshold is the midpoint of the two means, rounded to 0.05: an alert on a windowed mean then
 * fires once about half of the window looks like the bad set. Reported with it, by bootstrap
 * over windows of `minSamples` (20) triplets: the false-alarm rate on all-good windows and the
 * detection rate on windows with a 50 % bad share.
 *
 *   node scripts/alert-thresholds.ts [--file ../shared/data/halueval/qa_one_turn.jsonl] [--limit N]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { EmbeddedJudge } from '../src/judges/embedded/embedded-judge.ts';
import type { SampledTriplet } from '../src/triplet.ts';

const { values } = parseArgs({ options: { file: { type: 'string', default: '../shared/data/halueval/qa_one_turn.jsonl' }, limit: { type: 'string', default: '500' } } });
if (values.file.includes('multi_turn')) throw new Error('qa_multi_turn is the held-out set: thresholds are never chosen on it');

interface Row { knowledge: string; question: string; right_answer: string; hallucinated_answer: string }
const rows = readFileSync(values.file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row).slice(0, Number(values.limit));
const triplet = (i: number, query: string, source: string, response: string): SampledTriplet => ({
  id: `t${i}`, traceId: `t${i}`, spanId: 's', service: 'halueval', timestamp: new Date(0).toISOString(), query,
  sources: [{ content: source }], response, latency: { durationMs: 0 }, convention: 'custom', sampling: { weight: 1, stratum: 'all', rule: 'all' },
});

const judge = new EmbeddedJudge();
await judge.init();
async function scores(t: SampledTriplet, metric: string): Promise<number | undefined> {
  const r = await judge.score(t);
  if (!r.ok) throw r.error;
  return r.scores[metric as keyof typeof r.scores];
}

const SETS: Record<string, (r: Row, i: number, next: Row) => [good: SampledTriplet, bad: SampledTriplet]> = {
  grounding_lexical: (r, i) => [triplet(i, r.question, r.knowledge, r.right_answer), triplet(i, r.question, r.knowledge, r.hallucinated_answer)],
  context_relevancy: (r, i, next) => [triplet(i, r.question, r.knowledge, r.right_answer), triplet(i, r.question, next.knowledge, r.right_answer)],
  answer_relevancy: (r, i, next) => [triplet(i, r.question, r.knowledge, r.right_answer), triplet(i, r.question, r.knowledge, next.right_answer)],
};

/** Deterministic PRNG (mulberry32) so the bootstrap figures repeat. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
/** Share of bootstrap windows of `n` (a `badShare` of them from `bad`) whose mean is below `threshold`. */
function belowRate(good: number[], bad: number[], n: number, badShare: number, threshold: number, rounds = 20_000): number {
  const rand = rng(42);
  let below = 0;
  for (let k = 0; k < rounds; k++) {
    let sum = 0;
    for (let j = 0; j < n; j++) {
      const from = j < Math.round(n * badShare) ? bad : good;
      sum += from[Math.floor(rand() * from.length)]!;
    }
    if (sum / n < threshold) below++;
  }
  return below / rounds;
}

const MIN_SAMPLES = 20;
for (const [metric, build] of Object.entries(SETS)) {
  const good: number[] = [];
  const bad: number[] = [];
  for (const [i, r] of rows.entries()) {
    const [g, b] = build(r, i, rows[(i + 1) % rows.length]!);
    const gs = await scores(g, metric);
    const bs = await scores(b, metric);
    if (gs !== undefined) good.push(gs);
    if (bs !== undefined) bad.push(bs);
  }
  const threshold = Math.round(((mean(good) + mean(bad)) / 2) * 20) / 20;
  console.log(JSON.stringify({
    metric,
    scored: { good: good.length, bad: bad.length },
    mean: { good: +mean(good).toFixed(3), bad: +mean(bad).toFixed(3) },
    threshold,
    window: MIN_SAMPLES,
    false_alarm_rate_all_good: belowRate(good, bad, MIN_SAMPLES, 0, threshold),
    detection_rate_quarter_bad: belowRate(good, bad, MIN_SAMPLES, 0.25, threshold),
    detection_rate_half_bad: belowRate(good, bad, MIN_SAMPLES, 0.5, threshold),
    detection_rate_all_bad: belowRate(good, bad, MIN_SAMPLES, 1, threshold),
  }));
}
await judge.shutdown();
