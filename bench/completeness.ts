/**
 * Completeness cost (bench runner: bench/run.ts): the embedded judge's ms per triplet with the two
 * completeness metrics (as it runs now) against the same judge without them — the time completeness
 * takes on the judge's own sentence vectors, measured alone on the same HaluEval triplets and
 * subtracted. Target: ≤ 1.2×.
 */
import { readFileSync } from 'node:fs';
import { EmbeddedJudge } from '../src/judges/embedded/embedded-judge.ts';
import { CachedEmbedder } from '../src/judges/embedded/cached-embedder.ts';
import { completeness } from '../src/judges/embedded/completeness.ts';
import { DEFAULT_EMBEDDING_THREADS, loadEmbeddingModel } from '../src/judges/embedded/model.ts';
import { splitSentences } from '../src/judges/sentences.ts';
import type { SampledTriplet } from '../src/triplet.ts';
import { QUICK, emit, median } from './lib.ts';

interface Row { knowledge: string; question: string; right_answer: string; hallucinated_answer: string }
const rows = readFileSync(new URL('../scripts/data/halueval-qa-sample.jsonl', import.meta.url), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row).slice(0, QUICK ? 40 : 150);
const triplets: SampledTriplet[] = rows.map((r, i) => ({ id: `c${i}`, traceId: `${i}`.padStart(32, '6'), spanId: 's', service: 'bench', timestamp: new Date(0).toISOString(), query: r.question, sources: [{ content: r.knowledge }], response: r.hallucinated_answer, latency: { durationMs: 0 }, convention: 'custom' as const, sampling: { weight: 1, stratum: 'all', rule: 'all' } }));

const judgeMs: number[] = [];
for (let rep = 0; rep < 3; rep++) {
  const judge = new EmbeddedJudge({ embeddingCacheSize: 10_000 });
  await judge.init();
  const started = performance.now();
  for (const t of triplets) await judge.score(t);
  judgeMs.push((performance.now() - started) / triplets.length);
}
// The same sentence vectors the judge embeds, then completeness alone on them.
const embedder = new CachedEmbedder(await loadEmbeddingModel(DEFAULT_EMBEDDING_THREADS), 10_000);
const vectors = [];
for (const t of triplets) {
  const [q, r, s] = [splitSentences(t.query), splitSentences(t.response), splitSentences(t.sources[0]!.content)];
  const v = await embedder.embed([...q, ...r, ...s]);
  vectors.push({ q: v.slice(0, q.length), r: v.slice(q.length, q.length + r.length), s: v.slice(q.length + r.length) });
}
const completeMs: number[] = [];
for (let rep = 0; rep < 5; rep++) {
  const started = performance.now();
  for (let k = 0; k < 10; k++) for (const v of vectors) completeness(v.q, v.s, v.r, 0.45);
  completeMs.push((performance.now() - started) / (10 * vectors.length));
}
const withMs = median(judgeMs);
const withoutMs = withMs - median(completeMs);
emit({ bench: 'completeness', figure: 'completeness_judge_ratio', value: withMs, unit: 'ms', baseline: withoutMs, ratio: withMs / withoutMs });
emit({ bench: 'completeness', figure: 'completeness_ms_per_triplet', value: median(completeMs), unit: 'ms', baseline: null, ratio: null });
