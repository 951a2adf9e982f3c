/**
 * Slice alerts in split mode on Apache Kafka: a collector, three scorer replicas
 * (embedded judge) and one `ragwatch slices`. A healthy release v1 and a broken canary v2
 * (`service.version` on the resource) are traced; each scorer sees about a third of the answers. The
 * slices role reads every scorer's records from the scores topic, counts all of them, pages the canary
 * naming `release="v2"` and says `worse` on `ragwatch_release_verdict` and `/api/releases` — while no
 * scorer exports a slice alert or a verdict (no alert fires once per replica). The history (every
 * answer, the releases, the slice alert's firing) is the slices pod's, drawn at its `/`.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { openInferenceTrace, postOtlp } from '../helpers/otlp.ts';
import { metricValue, waitFor } from '../helpers/process.ts';
import { readTopicOnce, roleConfig, scrape, startRole, type RoleProcess } from './kafka-process.ts';

const enabled = haveKafka('tests/integration/kafka-slices.test.ts');

/** One OTLP request of `count` traces of `release`; a broken answer adds a year and a maker the source does not have. */
function traces(release: string, count: number, broken: (i: number) => boolean, tag: string): string {
  const resourceSpans: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const { body } = openInferenceTrace({
      release,
      query: `What is item ${tag}-${i}?`,
      documents: [{ id: `d${i}`, content: `Item ${tag}-${i} is a blue widget made in 2021 by Contoso.` }],
      response: broken(i) ? `Item ${tag}-${i} is a red widget made in 1987 by Initech in Oslo.` : `Item ${tag}-${i} is a blue widget made in 2021 by Contoso.`,
      startMs: Date.now() - 3_000,
    });
    resourceSpans.push(...(body.resourceSpans as unknown[]));
  }
  return JSON.stringify({ resourceSpans });
}

describe.skipIf(!enabled)('ragwatch slices over three scorer replicas', () => {
  let broker: KafkaTestCluster;
  const procs: RoleProcess[] = [];

  beforeAll(async () => {
    broker = await startKafkaCluster();
  }, 180_000);
  const cleanups: Array<() => void> = [];
  afterAll(async () => {
    for (const p of procs) await p.cleanup();
    await broker?.stop();
    for (const c of cleanups) c();
  });

  it('pages the broken canary once, from all records, naming release v2; the gate says worse; no scorer exports either', async () => {
    const prefix = `slices-${randomUUID().slice(0, 8)}`;
    const config = roleConfig(broker.brokers, prefix);
    config.judge = { kind: 'embedded', embedded: { threads: 1 } };
    // A store of this run's own (the slices pod's counts and history; the default ./data outlives runs).
    const dataDir = mkdtempSync(join(tmpdir(), 'ragwatch-slices-data-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    config.store = { dataDir };
    // Test-sized: a reference after 20 answers, a verdict after 5, evaluated twice a second.
    config.alerts = { evaluationIntervalMs: 500, slices: { minReferenceSamples: 20, maxShare: 0.95 }, releases: { minSamples: 5 } };
    const [collector, slices, ...scorers] = await Promise.all([startRole('collector', config), startRole('slices', config), startRole('scorer', config), startRole('scorer', config), startRole('scorer', config)]);
    procs.push(collector!, slices!, ...scorers);
    await waitFor(async () => (await Promise.all([slices!, ...scorers].map(async (p) => (await fetch(`${p.apiUrl}/readyz`)).status))).every((s) => s === 200), 60_000, 250);
    await waitFor(async () => (await Promise.all(scorers.map((s) => scrape(s.apiUrl, 'ragwatch_kafka_partitions_assigned')))).reduce((a, b) => a + b, 0) === 4, 60_000, 250);

    // 120 healthy v1 answers, then 40 more with a broken v2 canary of 12 beside them.
    const otlp = `${collector!.otlpUrl}`;
    expect((await postOtlp(otlp, traces('v1', 120, () => false, 'a'))).status).toBe(200);
    await waitFor(async () => (await scrape(slices!.apiUrl, 'ragwatch_slice_answers_total', { dimension: 'release', slice: 'v1', metric: 'grounding_lexical' })) >= 120, 90_000, 250);
    expect((await postOtlp(otlp, traces('v1', 40, () => false, 'b'))).status).toBe(200);
    expect((await postOtlp(otlp, traces('v2', 12, () => true, 'c'))).status).toBe(200);

    const api = `${slices!.apiUrl}/api/releases`;
    const releases = await waitFor(async () => {
      const body = (await (await fetch(api)).json()) as { services: Array<{ service: string; baseline: string; releases: Array<{ release: string; verdict?: string }> }> };
      return body.services[0]?.releases.find((r) => r.release === 'v2')?.verdict === 'worse' ? body : undefined;
    }, 90_000, 250);
    expect(releases.services[0]).toMatchObject({ service: 'rag-demo', baseline: 'v1' });
    const text = await waitFor(async () => {
      const t = await (await fetch(`${slices!.apiUrl}/metrics`)).text();
      return metricValue(t, 'ragwatch_slice_alert_active', { dimension: 'release', slice: 'v2', metric: 'grounding_lexical' }) === 1 ? t : undefined;
    }, 60_000, 250);
    expect(metricValue(text, 'ragwatch_release_verdict', { service: 'rag-demo', release: 'v2', baseline: 'v1' })).toBe(-1);

    // Every scorer judged a share; the slices role counted them all (once the last ones are scored).
    const shares = () => Promise.all(scorers.map((s) => scrape(s.apiUrl, 'ragwatch_score_ratio_count', { metric: 'grounding_lexical' })));
    await waitFor(async () => (await shares()).reduce((a, b) => a + b, 0) === 172, 60_000, 250);
    const scored = (await shares()).reduce((a, b) => a + b, 0);
    const countedAll = async () => { const t = await (await fetch(`${slices!.apiUrl}/metrics`)).text(); return ['v1', 'v2'].reduce((n, v) => n + (metricValue(t, 'ragwatch_slice_answers_total', { dimension: 'release', slice: v, metric: 'grounding_lexical' }) ?? 0), 0); };
    await waitFor(async () => (await countedAll()) === scored, 30_000, 250);
    expect(Math.max(...(await Promise.all(scorers.map((s) => scrape(s.apiUrl, 'ragwatch_score_ratio_count', { metric: 'grounding_lexical' })))))).toBeLessThan(172);
    expect(await countedAll()).toBe(scored);
    // The scores topic is at-least-once (a failover can repeat a record): five records published again
    // are skipped by the slices pod and counted, not counted as answers (nor in the history below).
    const again = (await readTopicOnce(broker.brokers, `${prefix}.scores.v1`)).slice(0, 5);
    expect(again).toHaveLength(5);
    const producer = new Kafka({ clientId: 'ragwatch-test-repeat', brokers: broker.brokers, logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    await producer.send({ topic: `${prefix}.scores.v1`, messages: again.map((value) => ({ key: (JSON.parse(value) as { traceId: string }).traceId, value })) });
    await producer.disconnect();
    await waitFor(async () => (await scrape(slices!.apiUrl, 'ragwatch_dropped_total', { stage: 'score_feed', reason: 'duplicate' })) === 5, 30_000, 250);
    expect(await countedAll()).toBe(scored);
    // No scorer runs the slices: no slice alert, no verdict, once per replica or at all.
    for (const s of scorers) {
      const t = await (await fetch(`${s.apiUrl}/metrics`)).text();
      expect(t).not.toMatch(/^ragwatch_slice_alert_active\{/m);
      expect(t).not.toMatch(/^ragwatch_release_verdict\{/m);
      // Nor keeps a history of its share: the service's history is the slices pod's.
      expect((await fetch(`${s.apiUrl}/api/series?service=rag-demo&metric=grounding_lexical`)).status).toBe(404);
    }
    // The slices pod's history holds every answer, the canary's release and the slice alert's firing.
    // The history is written in batches off the scoring path: wait until the slices pod has written every answer.
    const seriesUrl = `${slices!.apiUrl}/api/series?service=rag-demo&metric=grounding_lexical&from=${Date.now() - 3_600_000}&step=1h`;
    type Series = { series: Array<{ points: Array<{ answers: number }> }>; releases: Array<{ release: string }>; firings: Array<{ name: string; labels: Record<string, string> }> };
    const answersOf = (x: Series) => x.series[0]?.points.reduce((n, p) => n + p.answers, 0);
    let series: Series | undefined;
    await waitFor(async () => {
      const res = await fetch(seriesUrl);
      if (res.status !== 200) return false;
      series = (await res.json()) as Series;
      return answersOf(series) === scored;
    }, 30_000, 250).catch(() => undefined);
    expect(series, 'GET /api/series on the slices pod never answered 200').toBeDefined();
    if (!series) return;
    expect(series.series[0]!.points.reduce((n, p) => n + p.answers, 0)).toBe(scored);
    expect(series.releases.map((r) => r.release).sort()).toEqual(['v1', 'v2']);
    expect(series.firings).toContainEqual(expect.objectContaining({ name: 'RagwatchGroundingLexicalSliceDrop', labels: expect.objectContaining({ dimension: 'release', slice: 'v2' }) }));
    const page = await (await fetch(`${slices!.apiUrl}/`)).text();
    expect(page).toContain('<figcaption><b>grounding_lexical</b>');
  }, 240_000);
});
