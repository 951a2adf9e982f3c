/**
 * Completeness on the HaluEval development file (docs/judges.md): for several relevance cuts, how many
 * source sentences count as relevant, the mean scores of right and hallucinated answers, and the
 * ROC-AUC of each completeness variant for right vs hallucinated — the optimal transport
 * (`completeness_distribution`), the sentence similarity (`completeness`) and the paper's all-pairs
 * average approximation of the transport — plus a constructed check: answers restating every relevant
 * source sentence vs the first one only.
 *
 *   node scripts/halueval-completeness.ts [--limit 500]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { completeness } from '../src/judges/embedded/completeness.ts';
import { loadEmbeddingModel } from '../src/judges/embedded/model.ts';
import { cosine } from '../src/judges/self-distinctness.ts';
import { splitSentences } from '../src/judges/sentences.ts';

const { values } = parseArgs({ options: { limit: { type: 'string', default: '500' } } });
interface Row { knowledge: string; question: string; right_answer: string; hallucinated_answer: string }
const rows = readFileSync(new URL('../../shared/data/halueval/qa_one_turn.jsonl', import.meta.url), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row).slice(0, Number(values.limit));
const model = await loadEmbeddingModel(2);
const embed = async (texts: string[]) => (texts.length === 0 ? [] : model.embed(texts));

function auc(pos: number[], neg: number[]): number {
  let wins = 0;
  for (const p of pos) for (const n of neg) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return wins / (pos.length * neg.length);
}
const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;

const data: Array<{ q: number[][]; s: number[][]; right: number[][]; wrong: number[][]; src: string[] }> = [];
for (const r of rows) {
  const src = splitSentences(r.knowledge).slice(0, 64);
  const [q, s, right, wrong] = [await embed(splitSentences(r.question)), await embed(src), await embed(splitSentences(r.right_answer)), await embed(splitSentences(r.hallucinated_answer))];
  data.push({ q, s, right, wrong, src });
}
console.log('| relevance cut | relevant sentences (mean of ~%s) | completeness right / halluc. | AUC | distribution right / halluc. | AUC | all-pairs approx. AUC |'.replace('%s', mean(data.map((d) => d.s.length)).toFixed(1)));
console.log('|---|---|---|---|---|---|---|');
for (const cut of [0.3, 0.4, 0.45, 0.5, 0.6]) {
  const res = data.map((d) => ({ r: completeness(d.q, d.s, d.right, cut), w: completeness(d.q, d.s, d.wrong, cut) })).filter((x) => x.r && x.w);
  const allPairs = (ans: number[][], d: (typeof data)[number]) => {
    const rel = d.s.filter((sv) => Math.max(...d.q.map((qv) => cosine(sv, qv))) >= cut);
    const set = rel.length > 0 ? rel : [d.s[0]!];
    let sum = 0;
    for (const a of set) for (const b of ans) sum += 1 - Math.min(1, Math.max(0, cosine(a, b)));
    return 1 - sum / (set.length * ans.length);
  };
  const ap = data.filter((d) => d.right.length && d.wrong.length);
  console.log(`| ${cut} | ${mean(res.map((x) => x.r!.relevant)).toFixed(1)} | ${mean(res.map((x) => x.r!.completeness)).toFixed(3)} / ${mean(res.map((x) => x.w!.completeness)).toFixed(3)} | ${auc(res.map((x) => x.r!.completeness), res.map((x) => x.w!.completeness)).toFixed(3)} | ${mean(res.map((x) => x.r!.distribution)).toFixed(3)} / ${mean(res.map((x) => x.w!.distribution)).toFixed(3)} | ${auc(res.map((x) => x.r!.distribution), res.map((x) => x.w!.distribution)).toFixed(3)} | ${auc(ap.map((d) => allPairs(d.right, d)), ap.map((d) => allPairs(d.wrong, d))).toFixed(3)} |`);
}
// Constructed: an answer restating every relevant source sentence vs one restating the first only.
const full: number[] = [];
const part: number[] = [];
const fullD: number[] = [];
const partD: number[] = [];
for (const d of data.slice(0, 200)) {
  const rel = d.s.map((sv, i) => ({ i, sim: Math.max(...d.q.map((qv) => cosine(sv, qv))) })).filter((x) => x.sim >= 0.45);
  if (rel.length < 2) continue;
  const a = completeness(d.q, d.s, rel.map((x) => d.s[x.i]!), 0.45)!;
  const b = completeness(d.q, d.s, [d.s[rel[0]!.i]!], 0.45)!;
  full.push(a.completeness);
  part.push(b.completeness);
  fullD.push(a.distribution);
  partD.push(b.distribution);
}
console.log(`\nconstructed (${full.length} questions with ≥ 2 relevant sentences): completeness ${mean(full).toFixed(3)} (all restated) vs ${mean(part).toFixed(3)} (first only), AUC ${auc(full, part).toFixed(3)}; distribution ${mean(fullD).toFixed(3)} vs ${mean(partD).toFixed(3)}, AUC ${auc(fullD, partD).toFixed(3)}`);
