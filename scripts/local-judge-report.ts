/**
 * The local judge's figures from a `scripts/local-judge-halueval.ts` run (one JSON line per answer):
 * AUC of claim_support (right = positive), with the length control of DESIGN §24 (pairs within 3
 * characters, and what length alone scores there), the lexical check, and their combination as it
 * ships (an answer is flagged when claim_support or grounding_lexical is below its threshold); the
 * share of hallucinated answers flagged at ≤ 5 % of right answers flagged; the threshold that reaches
 * it; and per-sentence judging on two-sentence composites.
 *
 * `--fixture OUT.json` writes each answer's scores (claim_support, grounding_lexical) for the alert
 * simulations (`scripts/alert-detection.ts --judge local`, tests/helpers/real-scores.ts).
 *
 *   node scripts/local-judge-report.ts FILE.jsonl [--lexical-threshold 0.8] [--threshold T] [--fixture OUT.json]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { auc as rankAuc } from '../src/calibration/measures.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'lexical-threshold': { type: 'string', default: '0.8' }, threshold: { type: 'string' }, fixture: { type: 'string' } } });
interface Line { row: number; label: 0 | 1; chars: number; whole: number; perSentence: Record<string, number[]>; lexical: number | null; compositeLexical: number | null }
const lines = readFileSync(positionals[0] ?? 'local-judge-halueval.jsonl', 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line);
// Whole rows only (both answers judged).
const byRow = new Map<number, Line[]>();
for (const l of lines) byRow.set(l.row, [...(byRow.get(l.row) ?? []), l]);
const pairs = [...byRow.values()].filter((p) => p.length === 2).map((p) => ({ right: p.find((x) => x.label === 1)!, hall: p.find((x) => x.label === 0)! }));
const right = pairs.map((p) => p.right);
const hall = pairs.map((p) => p.hall);
const lexT = Number(values['lexical-threshold']);

/** ROC-AUC of good-vs-bad score lists (Mann–Whitney, ties ½): calibration's rank AUC. */
const auc = (good: readonly number[], bad: readonly number[]): number => rankAuc([...good, ...bad], [...good.map(() => 1 as const), ...bad.map(() => 0 as const)]) ?? Number.NaN;
const support = (l: Line) => 1 - l.whole;
/** The shipped flag as one score: below 1 when either metric is below its threshold. */
const combined = (t: number) => (l: Line) => Math.min(support(l) / t, l.lexical === null ? Infinity : l.lexical / lexT);
const flaggedShare = (xs: Line[], score: (l: Line) => number, cut: number) => xs.filter((l) => score(l) < cut).length / xs.length;

/** The highest cut whose false-positive share stays ≤ 5 %, and the detection there. */
function atFivePercent(score: (l: Line) => number): { cut: number; fp: number; detected: number } {
  const cuts = [...new Set([...right, ...hall].map(score).filter(Number.isFinite))].sort((a, b) => a - b);
  let best = { cut: -Infinity, fp: 0, detected: 0 };
  for (const c of cuts) {
    const cut = c + 1e-12;
    const fp = flaggedShare(right, score, cut);
    if (fp <= 0.05) best = { cut, fp, detected: flaggedShare(hall, score, cut) };
  }
  return best;
}

const matched = pairs.filter((p) => Math.abs(p.right.chars - p.hall.chars) <= 3);
const report = (name: string, score: (l: Line) => number, shippedCut?: number) => {
  const a = auc(right.map(score).map((x) => (Number.isFinite(x) ? x : 1e9)), hall.map(score).map((x) => (Number.isFinite(x) ? x : 1e9)));
  const m = matched.length > 1 ? auc(matched.map((p) => score(p.right)).map((x) => (Number.isFinite(x) ? x : 1e9)), matched.map((p) => score(p.hall)).map((x) => (Number.isFinite(x) ? x : 1e9))) : NaN;
  // The combination as shipped is read at its thresholds (cut 1), not at a cut of its own.
  const f = shippedCut === undefined ? atFivePercent(score) : { detected: flaggedShare(hall, score, shippedCut), fp: flaggedShare(right, score, shippedCut) };
  console.log(`| ${name} | ${a.toFixed(3)} | ${f.detected.toFixed(2)} (FP ${f.fp.toFixed(3)}) | ${Number.isNaN(m) ? '—' : m.toFixed(3)} | ${bucketAuc(score).toFixed(3)} |`);
};
const lengthScore = (l: Line) => -l.chars;
/** AUC within answer-length buckets (right and hallucinated answers of similar length), pooled by weight. */
function bucketAuc(score: (l: Line) => number): number {
  const edges = [0, 15, 30, 50, 80, Infinity];
  let sum = 0;
  let weight = 0;
  for (let b = 0; b + 1 < edges.length; b++) {
    const inB = (l: Line) => l.chars >= edges[b]! && l.chars < edges[b + 1]!;
    const g = right.filter(inB).map(score).map((x) => (Number.isFinite(x) ? x : 1e9));
    const h = hall.filter(inB).map(score).map((x) => (Number.isFinite(x) ? x : 1e9));
    if (g.length === 0 || h.length === 0) continue;
    sum += auc(g, h) * g.length * h.length;
    weight += g.length * h.length;
  }
  return sum / weight;
}
console.log(`${pairs.length} development-file rows (${pairs.length * 2} answers); ${matched.length} pairs within 3 characters\n`);
console.log('| score | AUC | hallucinated flagged at ≤ 5 % FP (combined: at its thresholds) | AUC on pairs within 3 characters | AUC within length buckets (<15, 15–29, 30–49, 50–79, ≥80 characters) |');
console.log('|---|---|---|---|---|');
report('answer length alone', lengthScore);
report('grounding_lexical (skipped = not flagged)', (l) => l.lexical ?? 1.0001);
report('claim_support (local judge)', support);
const lexFp = flaggedShare(right, (l) => l.lexical ?? 1, lexT);
// The claim_support threshold that keeps the combination within 5 % of right answers flagged.
let chosen = Number(values.threshold ?? NaN);
if (Number.isNaN(chosen)) {
  for (let t = 0.01; t < 1; t += 0.005) if (flaggedShare(right, combined(t), 1) <= 0.05) chosen = t;
}
report(`combined as shipped: claim_support < ${chosen.toFixed(3)} or lexical < ${lexT}`, combined(chosen), 1);
console.log(`\nlexical alone flags ${(flaggedShare(hall, (l) => l.lexical ?? 1, lexT) * 100).toFixed(1)} % of hallucinated and ${(lexFp * 100).toFixed(1)} % of right answers at < ${lexT}`);
console.log(`at claim_support < ${chosen.toFixed(3)}: local alone flags ${(flaggedShare(hall, support, chosen) * 100).toFixed(1)} % hallucinated / ${(flaggedShare(right, support, chosen) * 100).toFixed(1)} % right; combined ${(flaggedShare(hall, combined(chosen), 1) * 100).toFixed(1)} % / ${(flaggedShare(right, combined(chosen), 1) * 100).toFixed(1)} %`);
console.log(`mean claim_support: right ${(right.map(support).reduce((a, b) => a + b, 0) / right.length).toFixed(3)}, hallucinated ${(hall.map(support).reduce((a, b) => a + b, 0) / hall.length).toFixed(3)}`);

for (const ask of [...new Set(pairs.flatMap((p) => Object.keys(p.right.perSentence ?? {})))]) {
  const withAsk = pairs.filter((p) => p.right.perSentence?.[ask]?.length && p.hall.perSentence?.[ask]?.length);
  const right = withAsk.map((p) => p.right);
  const hall = withAsk.map((p) => p.hall);
  console.log(`\n${withAsk.length} rows with composites`);
  const least = (l: Line) => 1 - Math.max(...l.perSentence[ask]!);
  const source = (l: Line) => 1 - l.perSentence[ask]![l.perSentence[ask]!.length - 1]!;
  console.log(`\ncomposites (answer + the source's last sentence), per sentence, "${ask}": AUC of the least-supported sentence ${auc(right.map(least), hall.map(least)).toFixed(3)}; the verbatim source sentence flagged below ${chosen.toFixed(3)} in ${(flaggedShare([...right, ...hall], source, chosen) * 100).toFixed(1)} % of composites; the answer sentence alone AUC ${auc(right.map((l) => 1 - l.perSentence[ask]![0]!), hall.map((l) => 1 - l.perSentence[ask]![0]!)).toFixed(3)}`);
}

if (values.fixture) {
  const scores = (l: Line) => ({ claim_support: Number(support(l).toFixed(4)), ...(l.lexical !== null ? { grounding_lexical: Number(l.lexical.toFixed(4)) } : {}), pii_free: 1 });
  writeFileSync(values.fixture, `${JSON.stringify({ source: `HaluEval qa_one_turn.jsonl (development set), first ${pairs.length} rows, local judge (Qwen2.5-Coder-1.5B-Instruct Q4_K_M) + lexical check: scripts/local-judge-halueval.ts, scripts/local-judge-report.ts --fixture`, metrics: ['claim_support', 'grounding_lexical', 'pii_free'], right: right.map(scores), hallucinated: hall.map(scores) })}\n`);
  console.log(`\nwrote ${values.fixture}`);
}
