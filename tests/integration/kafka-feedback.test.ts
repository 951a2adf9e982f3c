/**
 * Done-when of issue 46 in split mode, on a real Apache Kafka (KRaft, tests/helpers/kafka-broker.ts):
 * feedback posted to the collector joins its answer whichever of two `ragwatch scorer` replicas scored
 * it. The collector counts every item (`ragwatch_feedback_total`) and publishes it on the labels topic;
 * each replica keeps all of them; the replica that scored an answer shares its scores once feedback
 * names it — so both replicas show the same users' agreement and the feedback of any trace, and no
 * replica counts an item a second time.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { waitFor } from '../helpers/process.ts';
import { roleConfig, scrape, sendTraces, startRole, type RoleProcess } from './kafka-process.ts';

interface Agreement {
  metric: string;
  judge: string;
  users: { auc: number; positives: number; negatives: number } | null;
}

describe.skipIf(!haveKafka('tests/integration/kafka-feedback.test.ts'))('feedback in split mode: two scorer replicas, real Kafka', () => {
  let kafka: KafkaTestCluster | undefined;
  const procs: RoleProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'ragwatch-kafka-feedback-'));
  afterAll(async () => {
    for (const p of procs) await p.cleanup();
    await kafka?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('feedback posted to the collector joins its answer on both replicas, whichever scored it', async () => {
    kafka = await startKafkaCluster({ nodes: 1 });
    const prefix = `fb-${randomUUID().slice(0, 8)}`;
    const base = roleConfig(kafka.brokers, prefix);
    const scorerConfig = (name: string) => ({ ...base, store: { dataDir: join(dir, name) } });
    // One at a time: three processes starting at once on a loaded machine (each loading the embedded model) starve each other.
    const collector = await startRole('collector', base, 90_000);
    procs.push(collector);
    const a = await startRole('scorer', scorerConfig('a'), 90_000);
    procs.push(a);
    const b = await startRole('scorer', scorerConfig('b'), 90_000);
    procs.push(b);
    await waitFor(async () => (await fetch(`${a!.apiUrl}/readyz`)).status === 200 && (await fetch(`${b!.apiUrl}/readyz`)).status === 200, 90_000, 300);
    const traces = await sendTraces(collector!.otlpUrl!, 20, 20, 'fb', 20);
    const scored = async () => (await scrape(a!.apiUrl, 'ragwatch_triplets_scored_total')) + (await scrape(b!.apiUrl, 'ragwatch_triplets_scored_total'));
    await waitFor(async () => (await scored()) >= 20, 120_000, 500);
    // Both replicas scored some: the partitions split the traffic.
    expect(await scrape(a!.apiUrl, 'ragwatch_triplets_scored_total')).toBeGreaterThan(0);
    expect(await scrape(b!.apiUrl, 'ragwatch_triplets_scored_total')).toBeGreaterThan(0);

    // Feedback to the collector's OTLP port: thumbs down on the first 6 answers, up on the next 6.
    const feedbackUrl = new URL('/v1/ragwatch/feedback', collector!.otlpUrl!).toString();
    for (const [i, traceId] of traces.slice(0, 12).entries()) {
      const res = await fetch(feedbackUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ traceId, thumbs: i < 6 ? 'down' : 'up', comment: `item ${i}` }) });
      expect(res.status).toBe(202);
    }
    expect(await scrape(collector!.apiUrl, 'ragwatch_feedback_total', { value: 'negative' })).toBe(6);
    expect(await scrape(collector!.apiUrl, 'ragwatch_feedback_total', { value: 'positive' })).toBe(6);

    const agreement = async (url: string) => ((await (await fetch(`${url}/api/calibration`)).json()) as { agreement: Agreement[] }).agreement.find((r) => r.metric === 'answer_relevancy' && r.judge === 'embedded');
    // Every replica joins all 12 answers: its own from its store, the other's through the labels topic.
    const both = await waitFor(async () => {
      const [ra, rb] = [await agreement(a!.apiUrl), await agreement(b!.apiUrl)];
      const full = (r: Agreement | undefined) => r?.users !== null && r?.users !== undefined && r.users.positives === 6 && r.users.negatives === 6;
      return full(ra) && full(rb) ? { ra: ra!, rb: rb! } : undefined;
    }, 60_000, 500);
    expect(both.ra.users!.auc).toBeCloseTo(both.rb.users!.auc, 12);
    for (const url of [a!.apiUrl, b!.apiUrl]) {
      const res = (await (await fetch(`${url}/api/feedback?traceId=${traces[0]}`)).json()) as { feedback: Array<{ polarity: string; comment: string; source: string }> };
      expect(res.feedback).toEqual([expect.objectContaining({ polarity: 'negative', comment: 'item 0', source: 'api' })]);
      // Counted once, where it arrived: never again by a replica that read it off the topic.
      expect(await scrape(url, 'ragwatch_feedback_total')).toBe(0);
    }
  }, 300_000);
});
