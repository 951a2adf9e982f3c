/**
 * One pseudonym policy in every mode (issue 38), on the librdkafka mock cluster: a collector, two
 * assemblers (`sampling.rate: 0.5`) and a scorer share one key (as the chart's Secret). Chats with
 * `session.id` and `user.id` are posted to the collector; then every topic — spans, triplets, scores,
 * DLQ (answers the judge cannot grade), labels (one label given) — and the scorer's SQLite store hold no
 * raw identifier, only the tokens `ragwatch start` gives under the same key; and each chat, whose turns
 * are different traces on different partitions, is judged whole or not at all by the two assemblers.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyRedactor } from '../../src/capture/redaction/policy-redactor.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.ts';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { CLOCK_TOWER, openInferenceTrace, postOtlp } from '../helpers/otlp.ts';
import { waitFor } from '../helpers/process.ts';
import { oracleResponder } from '../judges/helpers/oracle.ts';
import { TEST_HMAC_KEY, readTopicOnce, roleConfig, scrape, startRole, type RoleProcess } from './kafka-process.ts';

const enabled = haveKafka('tests/integration/kafka-pseudonyms.test.ts');
const CHATS = 24;
/** How long a group join or the assembly of the last traces may take on a loaded 2-core machine. */
const SETTLE_MS = 90_000;
/** Raw identifiers: none may appear anywhere ragwatch writes. */
const RAW = /sess-9911|alice-42/;

describe.skipIf(!enabled)('pseudonyms in split mode', () => {
  let broker: KafkaTestCluster;
  let judge: FakeOpenAI;
  const procs: RoleProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'ragwatch-pseudonyms-'));

  beforeAll(async () => {
    broker = await startKafkaCluster();
    // Answers of "Broken" widgets get no valid judgement: they end in the DLQ with their triplet.
    const oracle = oracleResponder();
    judge = await startFakeOpenAI((req) => (JSON.stringify(req.body).includes('Broken widget') ? { content: 'not json at all' } : oracle(req)));
  }, 180_000);
  afterAll(async () => {
    for (const p of procs) await p.cleanup();
    await broker?.stop();
    await judge?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('no raw identifier on any topic or in the store; the tokens of ragwatch start; every chat judged whole or not at all', async () => {
    const config = roleConfig(broker.brokers, `pseud-${randomUUID().slice(0, 8)}`, { assembly: 'spans_topic' }, judge.baseURL);
    config.sampling = { rate: 0.5 };
    config.capture = { traceIdleMs: 500 };
    config.store = { dataDir: join(dir, 'scorer') };
    const topics = (config.transport as { kafka: { topics: Record<string, string> } }).kafka.topics;
    const [collector, asmA, asmB, scorer] = await Promise.all([startRole('collector', config), startRole('assembler', config), startRole('assembler', config), startRole('scorer', config)]);
    procs.push(collector!, asmA!, asmB!, scorer!);
    // Both assemblers hold partitions and together all four (the join settled), so the chats are posted after the rebalance.
    const assigned = async (p: RoleProcess) => scrape(p.apiUrl, 'ragwatch_kafka_partitions_assigned');
    await waitFor(async () => (await assigned(asmA!)) > 0 && (await assigned(asmB!)) > 0 && (await assigned(asmA!)) + (await assigned(asmB!)) === 4, SETTLE_MS, 250);
    await waitFor(async () => (await fetch(`${scorer!.apiUrl}/readyz`)).status === 200, 60_000, 250);

    // Each chat: two turns (two traces), session.id and user.id on every span.
    const otlp = collector!.otlpUrl!;
    for (let n = 0; n < CHATS; n++) {
      const widget = n % 6 === 0 ? 'Broken widget' : 'Blue widget';
      const first = { ...CLOCK_TOWER, sessionId: `sess-9911-${n}`, query: `${widget} ${n}: what is it?` };
      const second = { ...first, query: `${widget} ${n}: and when was it made?`, history: [{ role: 'user' as const, content: first.query }, { role: 'assistant' as const, content: CLOCK_TOWER.response }] };
      for (const req of [first, second]) {
        const { body } = openInferenceTrace(req);
        for (const s of (body as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ attributes: unknown[] }> }> }> }).resourceSpans[0]!.scopeSpans[0]!.spans) s.attributes.push({ key: 'user.id', value: { stringValue: `alice-42-${n}` } });
        expect((await postOtlp(otlp, JSON.stringify(body))).status).toBe(200);
      }
    }
    // Everything captured is sampled or not; everything sampled is scored or in the DLQ.
    const captured = async () => (await scrape(asmA!.apiUrl, 'ragwatch_triplets_captured_total')) + (await scrape(asmB!.apiUrl, 'ragwatch_triplets_captured_total'));
    // A heartbeat late on a loaded machine can cost one more rebalance (seconds each on the mock) before the last traces go idle.
    await waitFor(async () => (await captured()) >= 2 * CHATS, SETTLE_MS, 250);
    expect(await captured()).toBe(2 * CHATS);
    const sampled = (await scrape(asmA!.apiUrl, 'ragwatch_triplets_sampled_total')) + (await scrape(asmB!.apiUrl, 'ragwatch_triplets_sampled_total'));
    await waitFor(async () => (await scrape(scorer!.apiUrl, 'ragwatch_triplets_scored_total')) + (await scrape(scorer!.apiUrl, 'ragwatch_triplets_failed_total')) >= sampled, 90_000, 250);
    // One label given on the scorer (it travels on the labels topic).
    const scores = (await readTopicOnce(broker.brokers, topics.scores!)).map((v) => JSON.parse(v) as ScoreRecord);
    expect(scores.length).toBeGreaterThan(0);
    // An answer of the review queue: the store keeps at most store.maxReviewItemsPerSecond of a burst, so not every scored one.
    let queued: string | undefined;
    await waitFor(async () => (queued = ((await (await fetch(`${scorer!.apiUrl}/api/review?limit=1`)).json()) as { items: Array<{ tripletId: string }> }).items[0]?.tripletId) !== undefined, 20_000, 250);
    const label = await fetch(`${scorer!.apiUrl}/api/labels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tripletId: queued, metric: 'groundedness', value: 1 }) });
    expect(label.status).toBe(201);
    await waitFor(async () => (await readTopicOnce(broker.brokers, topics.labels!)).length > 0, 20_000, 250);

    // No raw identifier anywhere: every topic, and the scorer's store.
    const all: Record<string, string[]> = {};
    for (const t of ['spans', 'triplets', 'scores', 'dlq', 'labels']) all[t] = await readTopicOnce(broker.brokers, topics[t]!);
    expect(all.dlq!.length).toBeGreaterThan(0);
    for (const [t, messages] of Object.entries(all)) expect(messages.filter((m) => RAW.test(m)), t).toEqual([]);
    const storeFiles = readdirSync(join(dir, 'scorer'));
    expect(storeFiles).toContain('ragwatch.sqlite');
    for (const f of storeFiles) expect(RAW.test(readFileSync(join(dir, 'scorer', f)).toString('latin1')), f).toBe(false);

    // The tokens ragwatch start gives under the same key.
    const start = new PolicyRedactor(loadConfig({ env: { RAGWATCH_REDACTION_HMAC_KEY: TEST_HMAC_KEY } }).redaction);
    const expected = (n: number) => {
      const r = start.redact({ id: 't', traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), service: 's', timestamp: '', query: 'q', sources: [], response: 'r', latency: { durationMs: 1 }, convention: 'custom', attributes: { 'session.id': `sess-9911-${n}`, 'user.id': `alice-42-${n}` }, conversation: { id: `sess-9911-${n}`, turn: 1, history: [] } });
      if (!r.ok) throw new Error('not redacted');
      return { conversation: r.triplet.conversation!.id!, session: r.triplet.attributes!['session.id'], user: r.triplet.attributes!['user.id'] };
    };
    const triplets = all.triplets!.map((v) => JSON.parse(v) as SampledTriplet);
    const byChat = new Map<number, SampledTriplet[]>();
    for (let n = 0; n < CHATS; n++) {
      const e = expected(n);
      const mine = triplets.filter((t) => t.conversation?.id === e.conversation);
      byChat.set(n, mine);
    }
    // The span records carry the identifiers as the same tokens (the collector pseudonymised them).
    const tokens = new Set(Array.from({ length: CHATS }, (_, n) => expected(n)).flatMap((e) => [e.session, e.user, e.conversation]));
    const seen = all.spans!.flatMap((m) => (JSON.parse(m) as { spans: Array<{ attributes: Record<string, unknown> }> }).spans.flatMap((sp) => ['session.id', 'user.id', 'ragwatch.conversation.id'].map((k) => sp.attributes[k]).filter((v) => v !== undefined)));
    for (const n of [1, 7]) for (const token of Object.values(expected(n))) expect(seen).toContain(token);
    expect(seen.filter((v) => !tokens.has(v as string))).toEqual([]);
    // Every triplet is one of the chats, and each chat has both turns or none (sampling on the token, one key for both assemblers).
    expect([...byChat.values()].flat()).toHaveLength(triplets.length);
    const judged = [...byChat.values()].filter((m) => m.length > 0);
    for (const m of byChat.values()) expect([0, 2]).toContain(new Set(m.map((t) => t.traceId)).size);
    expect(judged.length).toBeGreaterThan(CHATS * 0.2);
    expect(judged.length).toBeLessThan(CHATS * 0.8);
    // Both assemblers built turns of the judged chats.
    expect(await scrape(asmA!.apiUrl, 'ragwatch_triplets_captured_total')).toBeGreaterThan(0);
    expect(await scrape(asmB!.apiUrl, 'ragwatch_triplets_captured_total')).toBeGreaterThan(0);
  }, 360_000);
});
