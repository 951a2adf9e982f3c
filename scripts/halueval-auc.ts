/**
 * Measures the embedded judge on HaluEval QA (development set `qa_one_turn.jsonl` by default):
 * ROC-AUC of each embedded metric for right (label 1) vs hallucinated (label 0) answers, on all
 * pairs and on length-matched pairs, next to the "shorter answer is right" baseline; and the
 * self-distinctness threshold calibration (paraphrase pairs vs distinct same-topic sentence pairs).
 *
 *   node scripts/halueval-auc.ts [--file ../shared/data/halueval/qa_one_turn.jsonl] [--limit N]
 *
 * Do not tune on qa_multi_turn.jsonl: it is the held-out check (data README).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { EmbeddedJudge } from '../src/judges/embedded/embedded-judge.ts';
import { loadEmbeddingModel } from '../src/judges/embedded/model.ts';
import { cosine } from '../src/judges/self-distinctness.ts';
import { splitSentences } from '../src/judges/sentences.ts';
import type { SampledTriplet } from '../src/triplet.ts';

const { values } = parseArgs({ options: { file: { type: 'string', default: new URL('../../shared/data/halueval/qa_one_turn.jsonl', import.meta.url).pathname }, limit: { type: 'string' } } });
if (values.file.includes('multi_turn')) process.stderr.write('warning: qa_multi_turn is the held-out set; report it only with the design fixed, never tune on it\n');

interface Row { knowledge: string; question: string; right_answer: string; hallucinated_answer: string }
const rows = readFileSync(values.file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row).slice(0, values.limit ? Number(values.limit) : undefined);

/** ROC-AUC by Mann–Whitney (ties count 1/2); undefined without both classes. */
function auc(pos: number[], neg: number[]): number | undefined {
  if (pos.length === 0 || neg.length === 0) return undefined;
  let wins = 0;
  for (const p of pos) for (const n of neg) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return wins / (pos.length * neg.length);
}

const words = (s: string) => s.split(/\s+/).filter(Boolean).length;
const triplet = (i: number, q: string, k: string, a: string): SampledTriplet => ({
  id: `h${i}`, traceId: `h${i}`, spanId: 's', service: 'halueval', timestamp: new Date(0).toISOString(), query: q,
  sources: [{ content: k }], response: a, latency: { durationMs: 0 }, convention: 'custom', sampling: { weight: 1, stratum: 'all', rule: 'all' },
});

const judge = new EmbeddedJudge();
await judge.init();
const METRICS = ['grounding_lexical', 'answer_relevancy', 'context_relevancy', 'response_self_distinctness'] as const;
type Scored = { label: 0 | 1; row: number; scores: Partial<Record<string, number>>; words: number };
const scored: Scored[] = [];
const started = performance.now();
for (const [i, r] of rows.entries()) {
  for (const [label, answer] of [[1, r.right_answer], [0, r.hallucinated_answer]] as const) {
    const res = await judge.score(triplet(i, r.question, r.knowledge, answer));
    if (!res.ok) throw res.error;
    scored.push({ label, row: i, scores: res.scores, words: words(answer) });
  }
}
const msPerTriplet = (performance.now() - started) / scored.length;

// Length-matched: pairs whose two answers differ by at most one word.
const matchedRows = new Set(rows.flatMap((r, i) => (Math.abs(words(r.right_answer) - words(r.hallucinated_answer)) <= 1 ? [i] : [])));
const report = (subset: string, items: Scored[]) => {
  const out: Record<string, unknown> = { subset, pairs: items.length / 2 };
  const length = auc(items.filter((s) => s.label === 1).map((s) => -s.words), items.filter((s) => s.label === 0).map((s) => -s.words));
  out.shorter_is_right_auc = length === undefined ? null : +length.toFixed(3);
  for (const m of METRICS) {
    const pos = items.filter((s) => s.label === 1 && s.scores[m] !== undefined).map((s) => s.scores[m]!);
    const neg = items.filter((s) => s.label === 0 && s.scores[m] !== undefined).map((s) => s.scores[m]!);
    const a = auc(pos, neg);
    out[m] = { auc: a === undefined ? null : +a.toFixed(3), scored_right: pos.length, scored_hallucinated: neg.length };
  }
  return out;
};
console.log(JSON.stringify({ file: values.file, triplets: scored.length, embedded_ms_per_triplet: +msPerTriplet.toFixed(1) }));
console.log(JSON.stringify(report('all', scored)));
console.log(JSON.stringify(report('length_matched(|Δwords|≤1)', scored.filter((s) => matchedRows.has(s.row)))));

// Self-distinctness threshold: hand-written paraphrase pairs (should repeat) vs consecutive
// sentences of the same HaluEval passage (same topic, different facts: should not repeat).
const PARAPHRASES: Array<[string, string]> = [
  ['The Chimnabai Clock Tower was completed in 1896.', 'The construction of clock tower was completed in 1896.'],
  ['The Eiffel Tower is located in Paris, France.', 'Paris is home to the Eiffel Tower.'],
  ['The company reported a 12% increase in quarterly revenue.', 'Quarterly revenue at the company rose by 12%.'],
  ['The museum opens at nine in the morning.', 'The museum opens its doors at 9 a.m.'],
  ['You can reset your password from the settings page.', 'Passwords can be reset on the settings page.'],
  ['The refund is processed within five business days.', 'Refunds are processed within 5 business days.'],
  ['The bridge was designed by Gustave Eiffel.', 'Gustave Eiffel designed the bridge.'],
  ['The river flows through three countries.', 'Three countries lie along the course of the river.'],
  ['Shipping is free for orders above 50 dollars.', 'Orders over 50 dollars ship for free.'],
  ['The novel was first published in 1851.', 'The novel first appeared in print in 1851.'],
  ['Our support team is available around the clock.', 'The support team is available 24 hours a day.'],
  ['The drug was approved by the FDA in 2019.', 'In 2019 the FDA approved the drug.'],
  ['The album sold over a million copies.', 'More than one million copies of the album were sold.'],
  ['He was born in a small village near Lyon.', 'He was born in a little village close to Lyon.'],
  ['The meeting has been moved to Thursday.', 'The meeting was rescheduled for Thursday.'],
  ['The library holds about two million books.', 'Around two million books are held by the library.'],
  ['The plan includes unlimited storage.', 'Unlimited storage is included in the plan.'],
  ['The team won the championship in 2004.', 'In 2004 the team won the championship.'],
  ['Premium users can export reports as PDF.', 'Reports can be exported to PDF by premium users.'],
  ['The castle was built in the 12th century.', 'The castle dates from the 12th century.'],
];
const negatives: Array<[string, string]> = [];
for (const r of rows) {
  const s = splitSentences(r.knowledge.replace(/\.(?=[A-Z])/g, '. '));
  for (let i = 0; i + 1 < s.length && negatives.length < 600; i++) negatives.push([s[i]!, s[i + 1]!]);
}
const model = await loadEmbeddingModel();
const sims = async (pairs: Array<[string, string]>) => {
  const out: number[] = [];
  for (const [a, b] of pairs) {
    const [va, vb] = await model.embed([a, b]);
    out.push(cosine(va!, vb!));
  }
  return out;
};
const pos = await sims(PARAPHRASES);
const neg = await sims(negatives);
const table = [];
for (let t = 0.5; t <= 0.951; t += 0.05) {
  const recall = pos.filter((x) => x >= t).length / pos.length;
  const fpr = neg.filter((x) => x >= t).length / neg.length;
  table.push({ threshold: +t.toFixed(2), paraphrase_recall: +recall.toFixed(3), distinct_false_positive_rate: +fpr.toFixed(4), youden_j: +(recall - fpr).toFixed(3) });
}
// Rule: maximise Youden's J; among thresholds within 0.01 of the best J take the highest, because a
// false "repeat" lowers SD and can page someone, while a missed paraphrase only hides padding.
const bestJ = Math.max(...table.map((r) => r.youden_j));
const chosen = table.filter((r) => r.youden_j >= bestJ - 0.01).at(-1);
console.log(JSON.stringify({ sd_threshold_calibration: table, paraphrase_pairs: pos.length, distinct_pairs: neg.length, chosen_threshold: chosen?.threshold ?? null }));
await judge.shutdown();
