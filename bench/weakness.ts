/**
 * Weakness-map cost (bench runner: bench/run.ts):
 *  - topic assignment of a scored answer (its question's vector in a batch of 32, then the nearest
 *    centroid), as a ratio to the embedded judge's own time per triplet on the same HaluEval triplets,
 *    measured in this run — off the scoring path, but on the same cores: after the embedded judge (the
 *    question's vectors are in the shared cache) and cold (an LLM judge: the model embeds the question);
 *  - the word topic the sampler uses (`sampling.strata.by: topic`, on the capture path), as a ratio to
 *    a stratified sampling decision by route (the baseline in this run);
 *  - the topic fit (spherical k-means, 8 restarts, c-TF-IDF names) on 500 and 10,000 questions —
 *    on a worker thread live, reported: it never runs on the scoring thread.
 *  - the live map's cell computation over 50,000 answers (once per scrape at most, cached 5 s).
 */
import { readFileSync } from 'node:fs';
import { Registry } from 'prom-client';
import { EmbeddedJudge } from '../src/judges/embedded/embedded-judge.ts';
import { CachedEmbedder, sharedEmbedder } from '../src/judges/embedded/cached-embedder.ts';
import { DEFAULT_EMBEDDING_THREADS, loadEmbeddingModel } from '../src/judges/embedded/model.ts';
import type { SentenceEmbedder } from '../src/judges/types.ts';
import { StratifiedSampler } from '../src/sampling/stratified.ts';
import type { SampledTriplet } from '../src/triplet.ts';
import { LiveWeaknessMap } from '../src/weakness/live-map.ts';
import { SamplingTopics } from '../src/weakness/sampling-topics.ts';
import { assignTopic, embedQuestions, fitTopics } from '../src/weakness/topics.ts';
import { QUICK, emit, median } from './lib.ts';

interface Row { knowledge: string; question: string; right_answer: string }
const rows = readFileSync(new URL('../scripts/data/halueval-qa-sample.jsonl', import.meta.url), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row);
const N = QUICK ? 64 : 256;
const triplets: SampledTriplet[] = rows.slice(0, N).map((r, i) => ({
  id: `w${i}`, traceId: `${i}`.padStart(32, '4'), spanId: 's', service: 'bench', timestamp: new Date(0).toISOString(), query: r.question,
  sources: [{ content: r.knowledge }], response: r.right_answer, latency: { durationMs: 0 }, convention: 'custom' as const, route: `/r${i % 4}`, sampling: { weight: 1, stratum: 'all', rule: 'all' },
}));

// The judge per triplet (fresh judge with a cache of its own: empty, as for new traffic).
const judgeMs: number[] = [];
for (let rep = 0; rep < 2; rep++) {
  const judge = new EmbeddedJudge({ embeddingCacheSize: 10_000 });
  await judge.init();
  const started = performance.now();
  for (const t of triplets) await judge.score(t);
  judgeMs.push((performance.now() - started) / triplets.length);
  await judge.shutdown();
}

// Topics fitted on all 300 questions, then assignment per answer in batches of 32 (as LiveTopics does).
const questions = rows.map((r) => r.question);
const model = fitTopics(questions, await embedQuestions(new CachedEmbedder(await loadEmbeddingModel(DEFAULT_EMBEDDING_THREADS), 0), questions), 12).model;
async function assignMsPerTriplet(embedder: SentenceEmbedder): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < triplets.length; i += 32) for (const v of await embedQuestions(embedder, triplets.slice(i, i + 32).map((t) => t.query))) assignTopic(model, v);
  return (performance.now() - started) / triplets.length;
}
// The answers as the scorer sees them: the embedded judge (shared cache) scored them just before.
const scorer = new EmbeddedJudge();
for (const t of triplets) await scorer.score(t);
const warm: number[] = [];
const cold: number[] = [];
for (let rep = 0; rep < 3; rep++) {
  warm.push(await assignMsPerTriplet(await sharedEmbedder(DEFAULT_EMBEDDING_THREADS)));
  cold.push(await assignMsPerTriplet(new CachedEmbedder(await loadEmbeddingModel(DEFAULT_EMBEDDING_THREADS), 0)));
}
emit({ bench: 'weakness', figure: 'topic_assign_ratio_vs_judge', value: median(warm), unit: 'ms', baseline: median(judgeMs), ratio: median(warm) / median(judgeMs) });
emit({ bench: 'weakness', figure: 'topic_assign_cold_ratio_vs_judge', value: median(cold), unit: 'ms', baseline: median(judgeMs), ratio: median(cold) / median(judgeMs) });

// The sampler's word topic vs a stratified decision by route.
const rounds = QUICK ? 200 : 1_000;
const topics = new SamplingTopics(() => model);
const byRoute = new StratifiedSampler({ by: 'route', rates: { '/r0': 0.5, '/r1': 0.2 }, defaultRate: 0.1 });
const byTopic = new StratifiedSampler({ by: 'topic', topicOf: topics.topicOf, eachQuotaPerMinute: 30, defaultRate: 0.1 });
const usPer = (s: StratifiedSampler) => {
  const started = performance.now();
  for (let k = 0; k < rounds; k++) for (const t of triplets) s.shouldSample(t, 0);
  return ((performance.now() - started) * 1000) / (rounds * triplets.length);
};
const plain: number[] = [];
const topical: number[] = [];
for (let rep = 0; rep < 5; rep++) {
  plain.push(usPer(byRoute));
  topical.push(usPer(byTopic));
}
emit({ bench: 'weakness', figure: 'sampling_topic_us_per_triplet', value: median(topical), unit: 'us', baseline: median(plain), ratio: median(topical) / median(plain) });

// Fit time on synthetic questions (384-d, 12 planted clusters): 500 (the default warm-up) and 10,000.
function planted(n: number, k = 12, d = 384): number[][] {
  let seed = 7;
  const r = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5;
  const centers = Array.from({ length: k }, () => Array.from({ length: d }, r));
  return Array.from({ length: n }, (_, i) => centers[i % k]!.map((c) => c + 0.6 * r()));
}
for (const n of QUICK ? [500, 2_000] : [500, 10_000]) {
  const vectors = planted(n);
  const docs = vectors.map((_, i) => `question about subject${i % 12} number ${i}`);
  const started = performance.now();
  fitTopics(docs, vectors, 12);
  emit({ bench: 'weakness', figure: `topic_fit_ms_${n}_questions`, value: performance.now() - started, unit: 'ms', baseline: null, ratio: null });
}

// The live map's cells over 50,000 answers (4 metrics, topic × type).
const map = new LiveWeaknessMap({ registry: new Registry(), windowMs: 3_600_000, maxAnswers: 50_000, bivariateMetrics: ['grounding_lexical'], minCount: 20, fdr: 0.05, cacheMs: 0 });
const TYPES = ['what', 'who', 'when', 'where', 'why', 'how', 'yes_no', 'comparison', 'list', 'numeric', 'other'];
for (let i = 0; i < 50_000; i++) {
  const v = ((i * 7919) % 1000) / 1000;
  map.add({ tripletId: `m${i}`, judge: 'embedded', weight: 1 + (i % 3), scores: { grounding_lexical: v, context_relevancy: v, answer_relevancy: v, response_self_distinctness: v }, dims: { topic: `t${i % 12}`, queryType: TYPES[i % 11]!, route: `/r${i % 4}` } });
}
const cellMs: number[] = [];
for (let rep = 0; rep < 3; rep++) {
  const started = performance.now();
  map.cells();
  cellMs.push(performance.now() - started);
}
emit({ bench: 'weakness', figure: 'weakness_cells_ms_50000_answers', value: median(cellMs), unit: 'ms', baseline: null, ratio: null });

