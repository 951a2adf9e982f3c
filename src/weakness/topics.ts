/**
 * Topics of questions (HCAT §2, BERTopic-style): question embeddings clustered with spherical k-means
 * (k-means++ seeding from a fixed seed, so a run is reproducible), each topic named by its most
 * distinctive words — class-based TF-IDF: a word's frequency in the topic × log(1 + average words per
 * topic / the word's frequency over all topics). Assignment of a new question: the nearest centroid.
 * @module
 */
import { createHash } from 'node:crypto';

/** A fitted topic model. */
export interface TopicModel {
  /** Unit centroids, one per topic (`t0`, `t1`, …). */
  centroids: number[][];
  /** Names: the topic's most distinctive words. */
  labels: string[];
}

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

/** Deterministic uniform [0,1) numbers from a seed. */
function rng(seed: string): () => number {
  let counter = 0;
  return () => createHash('sha256').update(`${seed}:${counter++}`).digest().readUInt32BE(0) / 2 ** 32;
}

/** Index of the nearest centroid (highest cosine). */
export function nearest(centroids: readonly number[][], v: readonly number[]): number {
  let best = 0;
  let bestSim = -Infinity;
  centroids.forEach((c, i) => {
    const s = dot(c, v);
    if (s > bestSim) {
      bestSim = s;
      best = i;
    }
  });
  return best;
}

/** Spherical k-means with k-means++ seeding; returns unit centroids and the assignments. */
export function kmeans(vectors: readonly number[][], k: number, seed = 'ragwatch', iterations = 50): { centroids: number[][]; assignments: number[] } {
  const xs = vectors.map(unit);
  const kk = Math.max(1, Math.min(k, xs.length));
  const random = rng(seed);
  const centroids: number[][] = [xs[Math.floor(random() * xs.length)]!];
  while (centroids.length < kk) {
    // D² seeding on the cosine distance.
    const d = xs.map((x) => Math.max(0, 1 - Math.max(...centroids.map((c) => dot(c, x)))) ** 2);
    const total = d.reduce((a, b) => a + b, 0);
    if (total === 0) break;
    let r = random() * total;
    let i = 0;
    for (; i < d.length - 1 && r >= d[i]!; i++) r -= d[i]!;
    centroids.push(xs[i]!);
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
    return (
      [...m.entries()]
        .map(([w, f]) => [w, (f / size) * Math.log(1 + avg / all.get(w)!)] as const)
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .slice(0, top)
        .map(([w]) => w)
        .join(' ') || 'other'
    );
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
  return { model: { centroids, labels: ctfidfLabels(questions, assignments, centroids.length) }, assignments };
}
