/**
 * The split pipeline on a three-node Apache Kafka cluster (KRaft, replication factor 3,
 * min.insync.replicas 2; one cluster for the file, each case its own topics and groups):
 * - consumer-group rebalances under load: three scorers join and leave while traces flow;
 * - broker failover: `kill -9` of one of three brokers while 500 traces flow collector → assembler →
 *   2 scorers (idempotent producers, acks=all): every trace scored, none lost; the scores topic
 *   at-least-once with repeats few (its readers skip them), every process's accounting identity
 *   balanced, each extra judgment accounted for (a cut batch's judgment kept by a scorer that then lost
 *   the partition, or a repeated record), the time until scoring resumed printed (docs/kafka.md
 *   "Broker failover").
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScoreRecord } from '../../src/triplet.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.ts';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { waitFor } from '../helpers/process.ts';
import { oracleResponder } from '../judges/helpers/oracle.ts';
import { readTopic, readTopicOnce, roleConfig, scrape, sendTraces, startRole, type RoleProcess, type TopicReader } from './kafka-process.ts';

const enabled = haveKafka('tests/integration/kafka-cluster.test.ts');

/** Score records seen, with the time each arrived at the reader. */
function arrivals(reader: TopicReader): { times: number[]; stop(): void } {
  const times: number[] = [];
  const timer = setInterval(() => {
    while (times.length < reader.messages.length) times.push(Date.now());
  }, 20);
  return { times, stop: () => clearInterval(timer) };
}

const traceIdOf = (value: Buffer | null) => (JSON.parse(String(value)) as ScoreRecord).traceId;

/** What each role holds, for the failure message of a wait. */
async function state(procs: RoleProcess[], scores: TopicReader): Promise<string> {
  const rows = await Promise.all(
    procs.map(async (p) => {
      const names = ['ragwatch_kafka_partitions_assigned', 'ragwatch_triplets_received_total', 'ragwatch_triplets_scored_total', 'ragwatch_triplets_produced_total', 'ragwatch_triplets_in_flight', 'ragwatch_kafka_consumer_lag_messages', 'ragwatch_kafka_producer_buffer_messages'];
      const values = await Promise.all(names.map((n) => scrape(p.apiUrl, n).catch(() => NaN)));
      const text = await fetch(`${p.apiUrl}/metrics`).then((r) => r.text()).catch(() => '');
      const extra = text.split('\n').filter((l) => /^ragwatch_(dropped_total|triplets_failed_total|dlq_messages_total|triplets_deduplicated_total|spans_[a-z_]+|triplets_captured_total|triplets_sampled_total|generations_[a-z_]+|incomplete[a-z_]*|late_spans_total|kafka_produce_errors_total|kafka_connection_errors_total)\{?/.test(l)).join(' ');
      return `pid ${p.pid} exit=${p.child.exitCode}: ${names.map((n, i) => `${n.replace('ragwatch_', '')}=${values[i]}`).join(' ')} ${extra}`;
    }),
  );
  return `${new Set(scores.messages.map((m) => traceIdOf(m.value))).size} unique scored (${scores.messages.length} records)\n${rows.join('\n')}`;
}

describe.skipIf(!enabled)('three brokers: rebalances and failover', () => {
  let kafka: KafkaTestCluster;
  let judge: FakeOpenAI;
  const procs: RoleProcess[] = [];
  const readers: TopicReader[] = [];

  beforeAll(async () => {
    [kafka, judge] = await Promise.all([startKafkaCluster({ nodes: 3 }), startFakeOpenAI(oracleResponder())]);
  }, 180_000);
  afterAll(async () => {
    for (const r of readers) await r.stop();
    for (const p of procs) await p.cleanup();
    await kafka?.stop();
    await judge?.close();
  });

  it('three scorers join and leave under load: every trace scored, none twice', async () => {
    const prefix = `rebal-${randomUUID().slice(0, 8)}`;
    const config = roleConfig(kafka.brokers, prefix, { createTopics: { partitions: 6 } }, judge.baseURL);
    const [collector, first] = await Promise.all([startRole('collector', config), startRole('scorer', config)]);
    procs.push(collector!, first!);
    await waitFor(async () => (await fetch(`${first!.apiUrl}/readyz`)).status === 200 && (await scrape(first!.apiUrl, 'ragwatch_kafka_partitions_assigned')) === 6, 60_000, 250);
    const scores = await readTopic(kafka.brokers, `${prefix}.scores.v1`);
    readers.push(scores);

    const sent = new Set<string>();
    const scorers = [first!];
    // 600 traces, 20 every 250 ms; a scorer joins after 2 s and after 4 s, the first leaves (SIGTERM) after 6 s.
    for (let batch = 0; batch < 30; batch++) {
      const t = Date.now();
      for (const id of await sendTraces(collector!.otlpUrl!, 20, 20, `rb${batch}`)) sent.add(id);
      if (batch === 8 || batch === 16) {
        const s = await startRole('scorer', config);
        procs.push(s);
        scorers.push(s);
      }
      if (batch === 24) first!.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, Math.max(0, 250 - (Date.now() - t))));
    }
    expect(sent.size).toBe(600);
    expect(await first!.exited).toBe(0);
    await waitFor(() => new Set(scores.messages.map((m) => traceIdOf(m.value))).size >= 600, 90_000, 250).catch(async (err: unknown) => {
      console.log(`REBALANCE STATE ${await state([collector!, ...scorers], scores)}\n${scorers.map((p) => p.output().split('\n').filter((l) => /"level":(40|50)/.test(l)).slice(-15).join('\n')).join('\n---\n')}`);
      throw err;
    });
    const ids = (await readTopicOnce(kafka.brokers, `${prefix}.scores.v1`)).map((v) => (JSON.parse(v) as ScoreRecord).traceId);
    expect(new Set(ids).size).toBe(600);
    expect(ids.every((id) => sent.has(id))).toBe(true);
    const [second, third] = [scorers[1]!, scorers[2]!];
    // Both later scorers own partitions after the last rebalance, and scored some of the traffic.
    await waitFor(async () => (await scrape(second.apiUrl, 'ragwatch_kafka_partitions_assigned')) + (await scrape(third.apiUrl, 'ragwatch_kafka_partitions_assigned')) === 6, 30_000, 250);
    for (const s of [second, third]) {
      expect(await scrape(s.apiUrl, 'ragwatch_triplets_scored_total')).toBeGreaterThan(0);
      await waitFor(async () => (await scrape(s.apiUrl, 'ragwatch_triplets_in_flight')) === 0, 10_000, 200);
      const received = await scrape(s.apiUrl, 'ragwatch_triplets_received_total');
      const settled = (await scrape(s.apiUrl, 'ragwatch_triplets_scored_total')) + (await scrape(s.apiUrl, 'ragwatch_triplets_failed_total')) + (await scrape(s.apiUrl, 'ragwatch_dropped_total', { stage: 'scorer' }));
      expect(settled).toBe(received);
    }
    // At-least-once across rebalances: a record acknowledged just before its offset commit was refused
    // by a rebalance is judged again by the partition's next owner (docs/kafka.md, "Delivery
    // guarantees"). Records of a batch cut short by a rebalance are not sent, so they are not repeated.
    const duplicates = ids.length - new Set(ids).size;
    console.info(`kafka-cluster rebalance: ${ids.length} score records for 600 traces, ${duplicates} duplicates`);
    expect(duplicates).toBeLessThanOrEqual(60);
  }, 180_000);

  it('kill -9 of one of three brokers while 500 traces flow collector → assembler → 2 scorers: every one scored, none lost, repeats bounded', async () => {
    const prefix = `fo-${randomUUID().slice(0, 8)}`;
    const config = roleConfig(kafka.brokers, prefix, { assembly: 'spans_topic' }, judge.baseURL);
    const [collector, assembler, scorerA, scorerB] = await Promise.all([startRole('collector', config), startRole('assembler', config), startRole('scorer', config), startRole('scorer', config)]);
    procs.push(collector!, assembler!, scorerA!, scorerB!);
    const roles = [collector!, assembler!, scorerA!, scorerB!];
    await waitFor(async () => (await Promise.all(roles.map(async (p) => (await fetch(`${p.apiUrl}/readyz`)).status))).every((s) => s === 200), 60_000, 250);
    await waitFor(async () => (await scrape(scorerA!.apiUrl, 'ragwatch_kafka_partitions_assigned')) + (await scrape(scorerB!.apiUrl, 'ragwatch_kafka_partitions_assigned')) === 4, 60_000, 250);
    // The roles created their topics: the configured 4 partitions, one replica on each broker.
    const admin = await kafka.admin();
    const tripletsTopic = `${prefix}.triplets.v1`;
    const meta = await admin.fetchTopicMetadata({ topics: [tripletsTopic, `${prefix}.spans.v1`, `${prefix}.scores.v1`] });
    for (const t of meta.topics) expect(t.partitions.map((p) => p.replicas.length)).toEqual([3, 3, 3, 3]);

    const scores = await readTopic(kafka.brokers, `${prefix}.scores.v1`);
    readers.push(scores);
    const seen = arrivals(scores);
    // The broker leading most of the triplets topic's partitions goes down.
    const leaders = meta.topics.find((t) => t.name === tripletsTopic)!.partitions.map((p) => p.leader);
    const victimId = [1, 2, 3].sort((a, b) => leaders.filter((l) => l === b).length - leaders.filter((l) => l === a).length)[0]!;

    const sent = new Set<string>();
    let killedAt = 0;
    let leadersMovedMs = NaN;
    // 500 traces, 20 every 400 ms (10 s); the kill after 3.2 s.
    for (let batch = 0; batch < 25; batch++) {
      const t = Date.now();
      for (const id of await sendTraces(collector!.otlpUrl!, 20, 20, `fo${batch}`)) sent.add(id);
      if (batch === 8) {
        await kafka.kill(victimId - 1);
        killedAt = Date.now();
        // Leadership moves once the controller fences the dead broker (broker.session.timeout.ms, 9 s).
        void (async () => {
          for (;;) {
            const m = await admin.fetchTopicMetadata({ topics: [tripletsTopic] }).catch(() => undefined);
            if (m && m.topics[0]!.partitions.every((p) => p.leader !== victimId && p.leader >= 0)) return (leadersMovedMs = Date.now() - killedAt);
            await new Promise((r) => setTimeout(r, 100));
          }
        })();
      }
      await new Promise((r) => setTimeout(r, Math.max(0, 400 - (Date.now() - t))));
    }
    expect(sent.size).toBe(500);
    await waitFor(() => new Set(scores.messages.map((m) => traceIdOf(m.value))).size >= 500, 150_000, 250).catch(async (err: unknown) => {
      const spanIds = new Set((await readTopicOnce(kafka.brokers, `${prefix}.spans.v1`)).map((v) => (JSON.parse(v) as { traceId: string }).traceId));
      console.log(`SPANS TOPIC ${spanIds.size} unique traces; sent but not on the spans topic: ${[...sent].filter((id) => !spanIds.has(id)).length}`);
      console.log(`COLLECTOR LOG\n${collector!.output().split('\n').filter((l) => /unacknowledged|send failed|recreat/i.test(l)).slice(-20).join('\n')}`);
      console.log(`ASSEMBLER LOG\n${assembler!.output().split('\n').filter((l) => /hand|rebalanc|crash|rejoin|not committed/i.test(l)).slice(-20).join('\n')}`);
      console.log(`FAILOVER STATE ${await state(roles, scores)}\n${roles.map((p) => p.output().split('\n').filter((l) => /"level":(40|50)/.test(l)).slice(-15).join('\n')).join('\n---\n')}`);
      throw err;
    });
    await new Promise((r) => setTimeout(r, 3_000)); // a late duplicate would arrive now
    seen.stop();

    // The records on the topic, read without a consumer group (kcat, partition by partition): the
    // timing reader above may read again from the start after its group coordinator died.
    const ids = (await readTopicOnce(kafka.brokers, `${prefix}.scores.v1`)).map((v) => (JSON.parse(v) as ScoreRecord).traceId);
    // Scoring resumed: the longest silence on the scores topic after the kill, and when it ended.
    const after = seen.times.filter((t) => t >= killedAt);
    let gap = 0;
    let resumedAt = killedAt;
    for (let i = 1; i < after.length; i++) {
      if (after[i]! - after[i - 1]! > gap) {
        gap = after[i]! - after[i - 1]!;
        resumedAt = after[i]!;
      }
    }
    if (after.length > 0 && after[0]! - killedAt > gap) {
      gap = after[0]! - killedAt;
      resumedAt = after[0]!;
    }
    const recovery = { brokerKilled: victimId, recoveryMs: resumedAt - killedAt, longestGapMs: gap, leadersMovedMs, lastScoreAfterKillMs: (after.at(-1) ?? killedAt) - killedAt, records: ids.length };
    console.info(`kafka-cluster failover: ${JSON.stringify(recovery)}\n${await state(roles, scores)}`);

    // Every trace scored. The topic is at-least-once: a scorer whose records were acknowledged but whose
    // offset commit was refused as the coordinator died, and whose partition then moved, has them judged
    // and published again by the next owner (a clean-clone CI saw 11 such repeats of 500). ragwatch's own
    // readers skip a repeat (kafka-slices.test.ts); here the repeats stay a small share.
    const repeated = ids.length - new Set(ids).size;
    console.info(`kafka-cluster failover: ${ids.length} score records for 500 traces, ${repeated} repeated`);
    expect(new Set(ids).size).toBe(500);
    expect(repeated).toBeLessThanOrEqual(50);
    expect(ids.every((id) => sent.has(id))).toBe(true);
    expect(Number.isFinite(leadersMovedMs)).toBe(true);

    // Accounting, every process.
    const c = collector!.apiUrl;
    const a = assembler!.apiUrl;
    await waitFor(async () => (await scrape(a, 'ragwatch_triplets_in_flight')) === 0 && (await scrape(c, 'ragwatch_kafka_producer_buffer_messages')) === 0, 30_000, 250);
    expect(await scrape(a, 'ragwatch_triplets_captured_total')).toBe(500);
    expect(await scrape(a, 'ragwatch_triplets_sampled_total')).toBe(500);
    expect(await scrape(a, 'ragwatch_triplets_produced_total')).toBe(500);
    expect(await scrape(a, 'ragwatch_dropped_total', { stage: 'transport' })).toBe(0);
    let scored = 0;
    let keptNotReused = 0;
    for (const s of [scorerA!, scorerB!]) {
      await waitFor(async () => (await scrape(s.apiUrl, 'ragwatch_triplets_in_flight')) === 0, 10_000, 200);
      const received = await scrape(s.apiUrl, 'ragwatch_triplets_received_total');
      const own = await scrape(s.apiUrl, 'ragwatch_triplets_scored_total');
      const settled = own + (await scrape(s.apiUrl, 'ragwatch_triplets_failed_total')) + (await scrape(s.apiUrl, 'ragwatch_dropped_total', { stage: 'scorer' }));
      expect(settled).toBe(received);
      scored += own;
      keptNotReused += (await scrape(s.apiUrl, 'ragwatch_scorer_unsent_outcomes_total', { outcome: 'kept' })) - (await scrape(s.apiUrl, 'ragwatch_scorer_unsent_outcomes_total', { outcome: 'reused' }));
    }
    // Judged once each, but for two cases: a batch cut short (its coordinator died) keeps its judgments
    // for the redelivery; when the partition went to the other scorer meanwhile, that one judges the
    // triplet again (its record published once). And a repeated record above was judged by both.
    // Every extra judgment must be one of these — any other path judging twice fails here.
    console.info(`kafka-cluster failover judgments: ${scored} for 500 triplets, ${keptNotReused} kept by a scorer that lost the partition, ${repeated} records repeated`);
    expect(scored - 500).toBeGreaterThanOrEqual(keptNotReused);
    expect(scored - 500 - keptNotReused).toBeLessThanOrEqual(repeated);
    for (const p of roles) expect(p.child.exitCode).toBeNull();

    await kafka.restart(victimId - 1);
  }, 240_000);
});
