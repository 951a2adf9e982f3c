/**
 * Split mode calibration on the librdkafka mock cluster: two `ragwatch scorer` replicas, each with its
 * own store, score what the collector sends; reviewers label the answers on whichever replica holds
 * them; the labels travel on the compacted labels topic with their answers' scores, and both replicas
 * converge on the same calibration (same labels, same fitted map).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CalibrationModel } from '../../src/calibration/types.ts';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { waitFor } from '../helpers/process.ts';
import { roleConfig, sendTraces, startRole, type RoleProcess } from './kafka-process.ts';

describe.skipIf(!haveKafka('tests/integration/kafka-labels.test.ts'))('labels and topic-models topics: scorer replicas converge on one calibration and one set of topics', () => {
  let broker: KafkaTestCluster;
  const procs: RoleProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'ragwatch-kafka-labels-'));
  beforeAll(async () => {
    broker = await startKafkaCluster();
  }, 180_000);
  afterAll(async () => {
    for (const p of procs) await p.cleanup();
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('labels given on either replica reach both, both fit the same calibration, and both use the same topics', async () => {
    const prefix = `lbl-${randomUUID().slice(0, 8)}`;
    const base = roleConfig(broker.brokers, prefix);
    const scorerConfig = (name: string) => ({ ...base, store: { dataDir: join(dir, name), maxReviewItemsPerSecond: 1e9 }, calibration: { refitIntervalMs: 500, refitMinNewLabels: 1, minLabels: 30 }, weakness: { warmupQueries: 20, topicCount: 3 } });
    const [collector, a, b] = await Promise.all([startRole('collector', base), startRole('scorer', scorerConfig('a')), startRole('scorer', scorerConfig('b'))]);
    procs.push(collector!, a!, b!);
    await waitFor(async () => (await fetch(`${a!.apiUrl}/readyz`)).status === 200 && (await fetch(`${b!.apiUrl}/readyz`)).status === 200, 40_000, 200);
    await sendTraces(collector!.otlpUrl!, 90, 30, 'lbl', 30);
    type Queue = { items: Array<{ tripletId: string }> };
    const queue = async (url: string) => ((await (await fetch(`${url}/api/review?limit=200`)).json()) as Queue).items.map((i) => i.tripletId);
    // Every scored answer is held by the replica that scored it (partitions split the traffic; a
    // rebalance while the group forms may deliver a few to both — at-least-once — so each is labelled once).
    const held = await waitFor(async () => {
      const [qa, qb] = [await queue(a!.apiUrl), await queue(b!.apiUrl)];
      return new Set([...qa, ...qb]).size >= 90 ? { a: qa, b: qb.filter((id) => !qa.includes(id)) } : undefined;
    }, 60_000, 500);
    expect(held.a.length + held.b.length).toBe(90);
    let n = 0;
    for (const [url, ids] of [[a!.apiUrl, held.a], [b!.apiUrl, held.b]] as const) {
      for (const tripletId of ids) {
        const value = n++ % 3 === 0 ? 0 : 1;
        const res = await fetch(`${url}/api/labels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tripletId, metric: 'groundedness', value }) });
        expect(res.status).toBe(201);
      }
    }
    const calibration = async (url: string) => ((await (await fetch(`${url}/api/calibration`)).json()) as { calibrations: CalibrationModel[]; labels: number });
    const both = await waitFor(async () => {
      const [ca, cb] = [await calibration(a!.apiUrl), await calibration(b!.apiUrl)];
      const ready = (c: typeof ca) => c.labels === n && c.calibrations.length > 0 && c.calibrations[0]!.n === n;
      return ready(ca) && ready(cb) ? { ca, cb } : undefined;
    }, 60_000, 500);
    const strip = (c: { calibrations: CalibrationModel[] }) => c.calibrations.map(({ fittedAt: _f, ...m }) => m);
    expect(strip(both.ca)).toEqual(strip(both.cb));
    expect(both.ca.calibrations[0]).toMatchObject({ metric: 'grounding_lexical', judge: 'embedded', labelMetric: 'groundedness', n: 90 });
    // Each replica saw ≥ 20 questions and may have fitted topics of its own; both end on the earliest fit.
    const topics = async (url: string) => (await (await fetch(`${url}/metrics`)).text()).split('\n').filter((l) => l.startsWith('ragwatch_topic_info{')).sort();
    const same = await waitFor(async () => {
      const [ta, tb] = [await topics(a!.apiUrl), await topics(b!.apiUrl)];
      return ta.length === 3 && ta.join() === tb.join() ? ta : undefined;
    }, 30_000, 500);
    expect(same).toHaveLength(3);
  }, 180_000);
});
