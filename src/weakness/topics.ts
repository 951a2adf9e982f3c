/**
 * Topics of questions (HCAT §2, BERTopic-style): question embeddings clustered with spherical k-means
 * (k-means++ seeding from a fixed seed, so a run is reproducible), each topic named by its most
 * distinctive words — class-based TF-IDF: a word's frequency in the topic × log(1 + average words per
 * topic / the word's frequency over all topics). Assignment of a new question: the nearest centroid.
 * @module
 */
import { createHash } from 'node:crypto';
import { splitSentences } from '../judges/sentences.ts';
import type { SentenceEmbedder } from '../judges/types.ts';

/** A fitted topic model. */
export interface TopicModel {
  /** Unit centroids, one per topic (`t0`, `t1`, …). */
  centroids: number[][];
  /** Names: the topic's most distinctive words. */
  labels: string[];
  /** Each topic's most distinctive words with their c-TF-IDF weights (the cheap, model-free assignment the sampler uses). */
  keywords?: Array<Record<string, number>>;
  /** A question whose cosine to its nearest centroid is below this falls in `other` (the 2nd percentile of the fitted questions'). */
  otherBelow?: number;
  /** 1 for the first fit, +1 per re-clustering. */
  generation?: number;
  /** When and by which process it was fitted (replicas agree on the earliest of a generation). */
  fittedAtMs?: number;
  fitter?: string;
}

/** The topic of questions that fit no topic. */
export const OTHER_TOPIC = 'other';

const STOP = new Set(
  'a an the of in on at to for from by with and or but is are was were be been being do does did has have had what which who whom whose when where why how that this these those it its as into than then there their they he she his her him them we you your i me my not no yes can could will would should may might must shall about after before between during over under up down out off again more most some any all each other such only own same so too very just also which one two first second last name named called'.split(' '),
);

const dot = (a: readonly number[], b: readonly number[]) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};
const unit = (v: readonly number[]) => {
  const n = Math.sqrt(dot(v, v));
  return n === 0 ? [...v] : v.map((x) => x / n);
};

/**
 * Question vectors: the normalised mean of the question's sentence vectors (its first 8 sentences) —
 * the vectors the embedded judge computes for the same question, so a shared cache serves both.
 */
export async function embedQuestions(embedder: SentenceEmbedder, questions: readonly string[]): Promise<number[][]> {
  const sentences = questions.map((q) => {
    const s = splitSentences(q).slice(0, 8);
    return s.length > 0 ? s : [q];
  });
  const flat = await embedder.embed(sentences.flat());
  let at = 0;
  return sentences.map((s) => {
    const vs = flat.slice(at, (at += s.length));
    return unit(vs[0]!.map((_, j) => vs.reduce((sum, v) => sum + v[j]!, 0)));
  });
}

/** Deterministic uniform [0,1) numbers from a seed. */
function rng(seed: string): () => number {
  let counter = 0;
  return () => createHash('sha256').update(`${seed}:${counter++}`).digest().readUInt32BE(0) / 2 ** 32;
}

/** Index of the nearest centroid (highest cosine) and that cosine. */
export function nearestWithSimilarity(centroids: readonly number[][], v: readonly number[]): { index: number; similarity: number } {
  let index = 0;
  let similarity = -Infinity;
  centroids.forEach((c, i) => {
    const s = dot(c, v);
    if (s > similarity) {
      similarity = s;
      index = i;
    }
  });
  return { index, similarity };
}

/** Index of the nearest centroid (highest cosine). */
export function nearest(centroids: readonly number[][], v: readonly number[]): number {
  return nearestWithSimilarity(centroids, v).index;
}

/** The topic id of an embedded question: `t<i>` of its nearest centroid, or `other` when it is far from all. */
export function assignTopic(model: TopicModel, v: readonly number[]): { topic: string; similarity: number } {
  const { index, similarity } = nearestWithSimilarity(model.centroids, unit(v));
  return { topic: model.otherBelow !== undefined && similarity < model.otherBelow ? OTHER_TOPIC : `t${index}`, similarity };
}

/**
 * The topic by words alone — the sum of the question's words' c-TF-IDF weights per topic, highest
 * wins, `other` when no word is known. Microseconds and no model, so the sampler can stratify by it.
 */
export function lexicalTopic(model: TopicModel, question: string): string {
  const index = wordIndex(model);
  if (!index) return OTHER_TOPIC;
  const score = new Float64Array(model.labels.length);
  let best = -1;
  for (const w of words(question)) {
    for (const [topic, weight] of index.get(w) ?? []) {
      score[topic] += weight;
      if (best < 0 || score[topic]! > score[best]!) best = topic;
    }
  }
  return best < 0 ? OTHER_TOPIC : `t${best}`;
}

/** Word → [topic, weight] of a model's keywords, built once per model. */
const indexes = new WeakMap<TopicModel, Map<string, Array<[number, number]>>>();
function wordIndex(model: TopicModel): Map<string, Array<[number, number]>> | undefined {
  if (!model.keywords) return undefined;
  let index = indexes.get(model);
  if (!index) {
    index = new Map();
    for (const [topic, kw] of model.keywords.entries()) {
      for (const [w, weight] of Object.entries(kw)) {
        const list = index.get(w) ?? [];
        list.push([topic, weight]);
        index.set(w, list);
      }
    }
    indexes.set(model, index);
  }
  return index;
}

/** Spherical k-means with k-means++ seeding; returns unit centroids and the assignments. */
export function kmeans(vectors: readonly number[][], k: number, seed = 'ragwatch', iterations = 50): { centroids: number[][]; assignments: number[] } {
  const xs = vectors.map(unit);
  const kk = Math.max(1, Math.min(k, xs.length));
  const random = rng(seed);
  const centroids: number[][] = [xs[Math.floor(random() * xs.length)]!];
  // Each point's best cosine to the chosen centroids, updated with the newest only (O(n·k), not O(n·k²)).
  const bestSim = xs.map((x) => dot(centroids[0]!, x));
  while (centroids.length < kk) {
    // D² seeding on the cosine distance.
    const d = bestSim.map((s) => Math.max(0, 1 - s) ** 2);
    const total = d.reduce((a, b) => a + b, 0);
    if (total === 0) break;
    let r = random() * total;
    let i = 0;
    for (; i < d.length - 1 && r >= d[i]!; i++) r -= d[i]!;
    const c = xs[i]!;
    centroids.push(c);
    xs.forEach((x, j) => (bestSim[j] = Math.max(bestSim[j]!, dot(c, x))));
  }
  let assignments = xs.map((x) => nearest(centroids, x));
  for (let it = 0; it < iterations; it++) {
    const sums = centroids.map(() => new Array<number>(xs[0]!.length).fill(0));
    xs.forEach((x, i) => {
      const s = sums[assignments[i]!]!;
      for (let j = 0; j < x.length; j++) s[j]! += x[j]!;
    });
    sums.forEach((s, c) => {
      if (s.some((v) => v !== 0)) centroids[c] = unit(s);
    });
    const next = xs.map((x) => nearest(centroids, x));
    const changed = next.some((a, i) => a !== assignments[i]);
    assignments = next;
    if (!changed) break;
  }
  return { centroids, assignments };
}

const words = (text: string) => (text.toLowerCase().match(/[\p{L}][\p{L}\p{N}'-]*/gu) ?? []).filter((w) => w.length > 2 && !STOP.has(w));

/** Class-based TF-IDF names: the `top` most distinctive words of each topic's documents. */
export function ctfidfLabels(docs: readonly string[], assignments: readonly number[], topics: number, top = 3): string[] {
  return ctfidf(docs, assignments, topics).map((ranked) => ranked.slice(0, top).map(([w]) => w).join(' ') || 'other');
}

/** Each topic's words ranked by class-based TF-IDF, highest first. */
function ctfidf(docs: readonly string[], assignments: readonly number[], topics: number): Array<Array<readonly [string, number]>> {
  const tf = Array.from({ length: topics }, () => new Map<string, number>());
  const all = new Map<string, number>();
  let totalWords = 0;
  docs.forEach((d, i) => {
    for (const w of words(d)) {
      const m = tf[assignments[i]!]!;
      m.set(w, (m.get(w) ?? 0) + 1);
      all.set(w, (all.get(w) ?? 0) + 1);
      totalWords++;
    }
  });
  const avg = totalWords / Math.max(1, topics);
  return tf.map((m) => {
    const size = [...m.values()].reduce((a, b) => a + b, 0) || 1;
    return [...m.entries()].map(([w, f]) => [w, (f / size) * Math.log(1 + avg / all.get(w)!)] as const).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  });
}

/** Total cosine similarity of every vector to its centroid (higher = tighter clusters). */
function cohesion(vectors: readonly number[][], centroids: readonly number[][], assignments: readonly number[]): number {
  return vectors.reduce((s, v, i) => s + dot(unit(v), centroids[assignments[i]!]!), 0);
}

/** Fits topics to questions and their embeddings: the tightest of `restarts` k-means runs (fixed seeds). */
export function fitTopics(questions: readonly string[], embeddings: readonly number[][], k: number, restarts = 8): { model: TopicModel; assignments: number[] } {
  let best: { centroids: number[][]; assignments: number[] } | undefined;
  let bestScore = -Infinity;
  for (let r = 0; r < restarts; r++) {
    const run = kmeans(embeddings, k, `ragwatch:${r}`);
    const score = cohesion(embeddings, run.centroids, run.assignments);
    if (score > bestScore) {
      bestScore = score;
      best = run;
    }
  }
  const { centroids, assignments } = best!;
  const ranked = ctfidf(questions, assignments, centroids.length);
  const sims = embeddings.map((v, i) => dot(unit(v), centroids[assignments[i]!]!)).sort((a, b) => a - b);
  const model: TopicModel = {
    centroids,
    labels: ranked.map((r) => r.slice(0, 3).map(([w]) => w).join(' ') || 'other'),
    keywords: ranked.map((r) => Object.fromEntries(r.slice(0, KEYWORDS).map(([w, v]) => [w, Number(v.toPrecision(4))]))),
    otherBelow: sims[Math.floor(sims.length * 0.02)] ?? -1,
  };
  return { model, assignments };
}

/** Words kept per topic for the lexical assignment. */
const KEYWORDS = 30;

/** What a re-clustering changed, by topic id. */
export interface TopicChanges {
  /** Ids whose cluster persisted (centroid cosine ≥ the match cut), with old and new names. */
  kept: Array<{ id: string; label: string; previous: string }>;
  /** Ids now holding a different cluster. */
  replaced: Array<{ id: string; label: string; previous: string }>;
}

/**
 * Orders a fresh fit's topics so that a cluster which persisted keeps its id: greedy matching of
 * centroid pairs by cosine, highest first, down to `matchAbove`; unmatched fresh topics take the ids
 * left free. Ids stay within `t0…t(k−1)`, so the series stay bounded across re-clusterings.
 */
export function alignTopics(previous: TopicModel, fresh: TopicModel, matchAbove = 0.8): { model: TopicModel; changes: TopicChanges } {
  const pairs: Array<[number, number, number]> = [];
  previous.centroids.forEach((p, i) => fresh.centroids.forEach((f, j) => pairs.push([dot(p, f), i, j])));
  pairs.sort((a, b) => b[0] - a[0]);
  const slotOf = new Map<number, number>();
  const taken = new Set<number>();
  for (const [sim, i, j] of pairs) {
    if (sim < matchAbove) break;
    if (taken.has(i) || slotOf.has(j)) continue;
    slotOf.set(j, i);
    taken.add(i);
  }
  const kept = new Set(taken);
  let free = 0;
  for (let j = 0; j < fresh.centroids.length; j++) {
    if (slotOf.has(j)) continue;
    while (taken.has(free)) free++;
    slotOf.set(j, free);
    taken.add(free);
  }
  const size = Math.max(...slotOf.values()) + 1;
  const centroids = new Array<number[]>(size);
  const labels = new Array<string>(size);
  const keywords = new Array<Record<string, number>>(size);
  for (const [j, slot] of slotOf) {
    centroids[slot] = fresh.centroids[j]!;
    labels[slot] = fresh.labels[j]!;
    keywords[slot] = fresh.keywords?.[j] ?? {};
  }
  const changes: TopicChanges = { kept: [], replaced: [] };
  for (let slot = 0; slot < size; slot++) {
    if (previous.labels[slot] === undefined) continue;
    (kept.has(slot) ? changes.kept : changes.replaced).push({ id: `t${slot}`, label: labels[slot]!, previous: previous.labels[slot]! });
  }
  return { model: { ...fresh, centroids, labels, keywords }, changes };
}
