/**
 * `ragwatch prober` as its own process. On the librdkafka mock cluster it joins its probes to the
 * score records the scorers publish on the scores topic (a scripted "instrumented service + scorer"
 * publishes one per request under the request's traceparent): the judge audit is computed from
 * those records, well before the join timeout. Without Kafka it answers for itself: an uninstrumented
 * service's answers (sources in the reply) are scored by the prober's own judge.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startDemoRag } from '../../scripts/demo-rag/service.ts';
import type { ScoreRecord } from '../../src/triplet.ts';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { waitFor } from '../helpers/process.ts';
import { roleConfig, scrape, startRole, type RoleProcess } from './kafka-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-prober-role-'));
const procs: RoleProcess[] = [];
afterAll(async () => {
  for (const p of procs) await p.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** Four countries × two wordings; the service answers only the first wording right. */
function capitalSuite(url: string): string {
  mkdirSync(join(dir, 'facts'), { recursive: true });
  writeFileSync(join(dir, 'facts', 'countries.csv'), 'name,capital\nFrance,Paris\nGermany,Berlin\nSpain,Madrid\nItaly,Rome\n');
  const file = join(dir, 'capitals.yaml');
  writeFileSync(
    file,
    stringify({
      suite: 'capitals',
      csv: 'facts',
      target: { url, answerPath: 'answer', timeoutMs: 5_000 },
      templates: [{ name: 'capital', sql: "SELECT capital FROM countries WHERE name = '[countries.name]'", texts: ['What is the capital of [countries.name]?', 'Name the seat of government of [countries.name].'] }],
      limits: { concurrency: 2, perMinute: 6_000 },
      schedule: { every: '1h' },
    }),
  );
  return file;
}

const CAPITALS: Record<string, string> = { France: 'Paris', Germany: 'Berlin', Spain: 'Madrid', Italy: 'Rome' };

describe.skipIf(!haveKafka('tests/integration/kafka-prober.test.ts'))('ragwatch prober × Kafka scores topic', () => {
  let broker: KafkaTestCluster;
  let server: Server;
  let producer: Producer;

  beforeAll(async () => {
    broker = await startKafkaCluster();
  }, 180_000);
  afterAll(async () => {
    await producer?.disconnect();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    await broker?.stop();
  });

  it('joins each probe to the score record published under its trace id', async () => {
    const prefix = `probe-${randomUUID().slice(0, 8)}`;
    const config = roleConfig(broker.brokers, prefix);
    const scoresTopic = `${prefix}.scores.v1`;
    producer = new Kafka({ brokers: broker.brokers, logLevel: logLevel.NOTHING }).producer({ allowAutoTopicCreation: true });
    await producer.connect();
    // The "service + scorer": answers, then publishes the score its judge gave the captured trace.
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const q = (JSON.parse(body) as { question: string }).question;
        const country = Object.keys(CAPITALS).find((c) => q.includes(c))!;
        const right = q.startsWith('What is the capital');
        const traceId = String(req.headers.traceparent).split('-')[1]!;
        // Low groundedness on every wrong answer and on France's right one: precision 4/5, recall 4/4.
        const groundedness = !right || country === 'France' ? 0.2 : 0.95;
        const record: ScoreRecord = {
          tripletId: traceId, traceId, service: 'capitals-svc', stratum: 'probe', weight: 1, timestamp: new Date().toISOString(), origin: 'probe',
          judge: { kind: 'llm', model: 'scripted' }, scores: { groundedness }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [],
          usage: { calls: 1, inputTokens: 1, outputTokens: 1, durationMs: 1 },
        };
        void producer.send({ topic: scoresTopic, messages: [{ key: traceId, value: JSON.stringify(record) }] });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ answer: right ? `${CAPITALS[country]}.` : 'Lyon.' }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    await producer.send({ topic: scoresTopic, messages: [{ value: '{"warm":"up"}' }] });
    const suite = capitalSuite(`http://127.0.0.1:${(server.address() as AddressInfo).port}/ask`);
    config.probes = { suites: [suite], firstRunDelayMs: 2_000, joinTimeoutMs: 120_000 };
    const started = Date.now();
    const prober = await startRole('prober', config);
    procs.push(prober);
    await waitFor(async () => (await scrape(prober.apiUrl, 'ragwatch_probe_runs_total', { suite: 'capitals', status: 'completed' })) === 1, 60_000, 250);
    // Joined through the topic: the run did not sit out its 120 s join timeout.
    expect(Date.now() - started).toBeLessThan(60_000);
    const labels = { suite: 'capitals', metric: 'groundedness', judge: 'llm' };
    expect(await scrape(prober.apiUrl, 'ragwatch_probe_judge_precision_ratio', labels)).toBeCloseTo(0.8, 9);
    expect(await scrape(prober.apiUrl, 'ragwatch_probe_judge_recall_ratio', labels)).toBe(1);
    expect(await scrape(prober.apiUrl, 'ragwatch_probe_accuracy_ratio', { suite: 'capitals' })).toBe(0.5);
    expect(await scrape(prober.apiUrl, 'ragwatch_probe_robustness_ratio', { suite: 'capitals' })).toBe(0.5);
    expect(await scrape(prober.apiUrl, 'ragwatch_probe_groups', { suite: 'capitals', kind: 'non_robust' })).toBe(4);
    prober.child.kill('SIGTERM');
    const code = await prober.exited;
    if (code !== 0) console.log('PROBER OUTPUT', prober.output().slice(-4000));
    expect(code).toBe(0);
  }, 120_000);
});

describe('ragwatch prober without Kafka', () => {
  it('scores an uninstrumented service from its reply sources with its own judge, and stops on SIGTERM', async () => {
    const demo = await startDemoRag();
    try {
      const file = join(dir, 'demo.yaml');
      writeFileSync(file, stringify({ suite: 'demo', csv: resolve('config/probes/example/facts'), target: { url: demo.url, answerPath: 'answer', sourcesPath: 'sources' }, templates: [{ name: 'launch', sql: "SELECT launched FROM products WHERE name = '[products.name]'", texts: ['When was [products.name] launched?', 'In which year did [products.name] come out?'], match: 'number' }], limits: { perMinute: 6_000 } }));
      const prober = await startRole('prober', { server: { host: '127.0.0.1', httpPort: 0 }, probes: { suites: [file], firstRunDelayMs: 0, joinTimeoutMs: 200 }, metrics: { processMetrics: false }, log: { level: 'info' } });
      procs.push(prober);
      await waitFor(async () => (await scrape(prober.apiUrl, 'ragwatch_probe_runs_total', { suite: 'demo', status: 'completed' })) === 1, 30_000, 200);
      // "come out" is misread (generator failures), the missing launch year is a gap (retrieval).
      expect(await scrape(prober.apiUrl, 'ragwatch_probe_failures_total', { suite: 'demo', module: 'generator' })).toBeGreaterThan(0);
      expect(await scrape(prober.apiUrl, 'ragwatch_probe_failures_total', { suite: 'demo', module: 'retrieval' })).toBeGreaterThan(0);
      expect(await scrape(prober.apiUrl, 'ragwatch_probe_failures_total', { suite: 'demo', module: 'unknown' })).toBe(0);
      // Nothing was captured (no ingest, no Kafka): every judged answer was scored by the prober itself.
      const audited = await scrape(prober.apiUrl, 'ragwatch_probe_judge_audited', { suite: 'demo', metric: 'grounding_lexical', judge: 'embedded' });
      expect(audited).toBeGreaterThan(0);
      const metrics = await (await fetch(`${prober.apiUrl}/metrics`)).text();
      expect(metrics).toMatch(/^ragwatch_probe_judge_recall_ratio\{suite="demo",metric="grounding_lexical",judge="embedded"\} [0-9.]+$/m);
      prober.child.kill('SIGTERM');
      expect(await prober.exited).toBe(0);
    } finally {
      await demo.close();
    }
  }, 60_000);
});
