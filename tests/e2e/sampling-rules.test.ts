/**
 * Sampling rules on attributes and on negative feedback through `ragwatch start` (in process, real
 * ports, the pseudonym key kept in the data directory): OTLP/HTTP traces in at `sampling.rate: 0`; only
 * the answers a rule names are judged — a tenant id (an HMAC attribute) on the resource with a plan on
 * the request span, and negative feedback on the request span, read as `ragwatch_feedback_total` reads
 * it — and the accounting identity holds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { startApp, type RunningApp } from '../../src/roles/start.ts';
import type { SampledTriplet } from '../../src/triplet.ts';
import { CLOCK_TOWER, openInferenceTrace, postOtlp, type RagRequest } from '../helpers/otlp.ts';
import { metricValue, waitFor } from '../helpers/process.ts';

let dir: string;
let app: RunningApp;
let http: string;
const judged: SampledTriplet[] = [];

const traceId = (n: number) => `5a${n.toString(16).padStart(30, '0')}`;
const REQUESTS: Array<[number, Partial<RagRequest>]> = [
  [1, { resourceAttributes: { 'tenant.id': 'acme-7731' }, rootAttributes: { plan: 'gold' } }],
  [2, { resourceAttributes: { 'tenant.id': 'acme-7731' }, rootAttributes: { plan: 'free' } }],
  [3, { resourceAttributes: { 'tenant.id': 'globex' }, rootAttributes: { plan: 'gold' } }],
  [4, { rootAttributes: { 'user.feedback': 'thumbs_down' } }],
  [5, { rootAttributes: { 'user.rating': 2 } }],
  [6, { rootAttributes: { 'user.feedback': 'thumbs_up' } }],
  [7, {}],
];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ragwatch-sampling-rules-'));
  const config = loadConfig({
    env: {},
    overrides: {
      server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0 },
      store: { dataDir: join(dir, 'data') },
      metrics: { processMetrics: false },
      capture: { traceIdleMs: 200 },
      sampling: {
        rate: 0,
        rules: [
          { name: 'acme-gold', action: 'in', match: { attributes: { 'tenant.id': 'acme-7731', plan: 'gold' } } },
          { name: 'unhappy', action: 'in', match: { negativeFeedback: true } },
        ],
      },
    },
  });
  app = await startApp(config, silentLogger);
  app.pipeline.sinks.add({ onRecord: (_r, t) => void (t && judged.push(t)) });
  http = `http://127.0.0.1:${app.http.port}`;
  await waitFor(() => app.pipeline.ready, 60_000);
  const otlp = `http://127.0.0.1:${app.otlp.port}/v1/traces`;
  for (const [n, extra] of REQUESTS) {
    const res = await postOtlp(otlp, JSON.stringify(openInferenceTrace({ ...CLOCK_TOWER, traceId: traceId(n), ...extra }).body));
    expect(res.status).toBe(200);
  }
  await waitFor(async () => {
    const text = await (await fetch(`${http}/metrics`)).text();
    const captured = metricValue(text, 'ragwatch_triplets_captured_total') ?? 0;
    const scored = metricValue(text, 'ragwatch_triplets_scored_total', { judge: 'embedded' }) ?? 0;
    const notSampled = metricValue(text, 'ragwatch_triplets_not_sampled_total') ?? 0;
    return captured === REQUESTS.length && scored + notSampled === captured;
  }, 60_000);
}, 120_000);

afterAll(async () => {
  await app?.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

describe('sampling rules through ragwatch start', () => {
  it('judges exactly the answers a rule names, each with its rule', () => {
    const byTrace = Object.fromEntries(judged.map((t) => [t.traceId, t.sampling.rule]));
    expect(byTrace).toEqual({ [traceId(1)]: 'acme-gold', [traceId(4)]: 'unhappy', [traceId(5)]: 'unhappy' });
    // The tenant id left capture as its pseudonym (the key kept in the data directory), never raw.
    const acme = judged.find((t) => t.traceId === traceId(1))!;
    expect(acme.attributes).toEqual({ 'tenant.id': expect.stringMatching(/^k1_[0-9a-f]{12}$/), plan: 'gold' });
    expect(JSON.stringify(judged)).not.toContain('acme-7731');
  });

  it('counts the rest as not sampled, and the feedback a rule read as ragwatch_feedback_total does', async () => {
    const text = await (await fetch(`${http}/metrics`)).text();
    expect(metricValue(text, 'ragwatch_triplets_not_sampled_total')).toBe(4);
    expect(metricValue(text, 'ragwatch_triplets_sampled_total', { stratum: 'all' })).toBe(3);
    await waitFor(async () => metricValue(await (await fetch(`${http}/metrics`)).text(), 'ragwatch_feedback_total', { value: 'negative' }) === 2, 10_000);
    expect(metricValue(await (await fetch(`${http}/metrics`)).text(), 'ragwatch_feedback_total', { value: 'positive' })).toBe(1);
  });
});
