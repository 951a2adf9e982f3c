/**
 * Topics on a constructed corpus with known topics (refunds, shipping, passwords), embedded with the
 * bundled model: spherical k-means recovers them and class-based TF-IDF names each by its words;
 * the same input gives the same topics (fixed seed); a new question goes to the nearest centroid.
 */
import { describe, expect, it } from 'vitest';
import { loadEmbeddingModel } from '../../src/judges/embedded/model.ts';
import { alignTopics, assignTopic, ctfidfLabels, fitTopics, lexicalTopic, nearest, type TopicModel } from '../../src/weakness/topics.ts';

const CORPUS: Record<string, string[]> = {
  refund: ['How do I get a refund for my order?', 'Can I get my money back after a refund request?', 'When will my refund arrive?', 'Why was my refund declined?', 'Is a refund possible for a damaged item?', 'How long does a refund take to process?', 'Where do I request a refund?', 'Do you refund shipping fees when I return an item?'],
  shipping: ['How long does shipping to Canada take?', 'Which courier delivers my parcel?', 'Can I track my shipment?', 'What does express shipping cost?', 'Do you ship parcels to Norway?', 'Why is my parcel delivery late?', 'Can I change the shipping address of my parcel?', 'Is shipping free above 50 euros?'],
  password: ['How do I reset my password?', 'I forgot my password, what now?', 'Why is my password rejected?', 'Can I change my password on mobile?', 'How long must a password be?', 'Is two-factor login available besides the password?', 'My password reset email never came.', 'Can support see my password?'],
};

describe('topics', () => {
  it('recovers three known topics and names them by their words', async () => {
    const docs = Object.values(CORPUS).flat();
    const truth = Object.keys(CORPUS).flatMap((k) => CORPUS[k]!.map(() => k));
    const embedder = await loadEmbeddingModel(1);
    const vectors = await embedder.embed(docs);
    const { model, assignments } = fitTopics(docs, vectors, 3);
    // Purity: each found topic is (almost) one true topic.
    let majority = 0;
    for (let c = 0; c < 3; c++) {
      const members = truth.filter((_, i) => assignments[i] === c);
      const counts = Object.keys(CORPUS).map((k) => members.filter((m) => m === k).length);
      majority += Math.max(...counts);
      const top = Object.keys(CORPUS)[counts.indexOf(Math.max(...counts))]!;
      expect(model.labels[c], `topic ${c}`).toContain(top);
    }
    expect(majority / docs.length).toBeGreaterThanOrEqual(0.9);
    expect(fitTopics(docs, vectors, 3).assignments).toEqual(assignments);
    const [v] = await embedder.embed(['Where is my refund?']);
    expect(truth[assignments.indexOf(nearest(model.centroids, v!))]).toBe('refund');
  }, 60_000);

  it('c-TF-IDF prefers words frequent in a topic and rare elsewhere', () => {
    const labels = ctfidfLabels(['refund refund order', 'refund policy', 'parcel shipping order', 'shipping parcel'], [0, 0, 1, 1], 2, 1);
    expect(labels).toEqual(['refund', 'parcel']);
  });

  it('assigns by words (the sampler) mostly as the embeddings do, and far questions to other', async () => {
    const docs = Object.values(CORPUS).flat();
    const embedder = await loadEmbeddingModel(1);
    const { model, assignments } = fitTopics(docs, await embedder.embed(docs), 3);
    const agree = docs.filter((d, i) => lexicalTopic(model, d) === `t${assignments[i]}`).length;
    expect(agree / docs.length).toBeGreaterThanOrEqual(0.9);
    expect(lexicalTopic(model, 'Zebras eat grass.')).toBe('other');
    const [far] = await embedder.embed(['Will it snow in the Alps this week?']);
    expect(assignTopic(model, far!).topic).toBe('other');
  }, 60_000);

  it('a re-clustering keeps the id of a cluster that persisted and hands the freed ids to new ones', () => {
    const e = (i: number) => Array.from({ length: 4 }, (_, j) => (j === i ? 1 : 0));
    const previous: TopicModel = { centroids: [e(0), e(1), e(2)], labels: ['refund', 'shipping', 'password'] };
    // The fresh fit found password (nearly the same centroid), refund, and a new weather cluster, in another order.
    const fresh: TopicModel = { centroids: [e(3), [0, 0, 0.99, 0.141], e(0)], labels: ['weather', 'password reset', 'refund'] };
    const { model, changes } = alignTopics(previous, fresh);
    expect(model.labels).toEqual(['refund', 'weather', 'password reset']);
    expect(changes.kept.map((c) => c.id)).toEqual(['t0', 't2']);
    expect(changes.replaced).toEqual([{ id: 't1', label: 'weather', previous: 'shipping' }]);
  });
});
