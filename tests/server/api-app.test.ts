/**
 * Metrics/API port: content negotiation on /metrics, /api/status (no secrets), /api/examples
 * filters and validation, /examples escaping and headers.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { configSummary } from '../../src/config/summary.ts';
import { instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import { Scorer } from '../../src/scorer/scorer.ts';
import { createApiApp } from '../../src/server/api-app.ts';
import type { SampledTriplet } from '../../src/triplet.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';

function triplet(i: number, response: string, service = 'rag'): SampledTriplet {
  return {
    id: `t${i}`,
    traceId: `0af7651916cd43dd8448eb211c80319${i}`,
    spanId: `b7ad6b716920333${i}`,
    service,
    timestamp: new Date().toISOString(),
    query: 'When was the <b>Chimnabai</b> Clock Tower completed?',
    sources: [{ id: 'doc-1', content: 'The Chimnabai Clock Tower was completed in 1896.' }],
    response,
    latency: { durationMs: 10 },
    convention: 'openinference',
    sampling: { weight: 1, stratum: 'default', rule: 'test' },
  };
}

async function setup() {
  const config = loadConfig({
    env: {},
    overrides: { server: { bearerToken: 'super-secret-token-0123456789' }, judge: { apiKey: 'sk-very-secret' }, metrics: { processMetrics: false } },
  });
  const instruments = createInstruments(instrumentsOptionsFromConfig(config));
  const quality = new QualityMonitor({ config, instruments });
  const scorer = new Scorer({ judge: new LexicalJudge(), instruments, onRecord: quality.onRecord });
  await scorer.handle(triplet(1, 'The Chimnabai Clock Tower was completed in 1896.'));
  await scorer.handle(triplet(2, 'The Chimnabai Clock Tower was completed in 1896. <script>alert(1)</script> Napoleon built it.'));
  await scorer.handle(triplet(3, 'Completed in 1856 by Napoleon.', 'other-svc'));
  const app = createApiApp({ registry: instruments.registry, ready: () => true, quality, summary: () => configSummary(config) });
  return { app, quality };
}

describe('api app', () => {
  it('serves Prometheus text by default and OpenMetrics when asked', async () => {
    const { app } = await setup();
    const text = await app.request('/metrics');
    expect(text.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await text.text()).toContain('ragwatch_score_samples_total{');
    const om = await app.request('/metrics', { headers: { accept: 'application/openmetrics-text;version=1.0.0' } });
    expect(om.headers.get('content-type')).toMatch(/^application\/openmetrics-text/);
    expect(await om.text()).toMatch(/# \{trace_id="0af7651916cd43dd8448eb211c80319\d"\}/);
  });

  it('/api/status: config summary without secrets, current means, alerts, diagnosis', async () => {
    const { app } = await setup();
    const body = await (await app.request('/api/status')).text();
    expect(body).not.toContain('super-secret');
    expect(body).not.toContain('sk-very-secret');
    const status = JSON.parse(body) as { config: { server: { bearerToken: string }; judge: { apiKey: string } }; means: Array<{ metric: string; service: string; mean: number; samples: number }> };
    expect(status.config.server.bearerToken).toBe('set');
    expect(status.config.judge.apiKey).toBe('set');
    const g = status.means.find((m) => m.metric === 'groundedness' && m.service === 'rag')!;
    expect(g.samples).toBe(2);
    // t1 fully supported (1); t2 has two sentences, one unsupported (0.5).
    expect(g.mean).toBeCloseTo((1 + 0.5) / 2, 10);
  });

  it('/api/examples filters by metric, threshold and service, newest first, and validates input', async () => {
    const { app } = await setup();
    const all = (await (await app.request('/api/examples?metric=groundedness&below=0.8')).json()) as { count: number; examples: Array<{ record: { tripletId: string; scores: Record<string, number> } }> };
    expect(all.examples.map((e) => e.record.tripletId)).toEqual(['t3', 't2']);
    const svc = (await (await app.request('/api/examples?metric=groundedness&below=0.8&service=rag&limit=1')).json()) as typeof all;
    expect(svc.examples.map((e) => e.record.tripletId)).toEqual(['t2']);
    const none = (await (await app.request('/api/examples?metric=groundedness&below=0.2')).json()) as typeof all;
    expect(none.examples.map((e) => e.record.tripletId)).toEqual(['t3']);
    for (const bad of ['below=2', 'limit=0', 'limit=abc', 'metric=DROP%20TABLE']) {
      const res = await app.request(`/api/examples?${bad}`);
      expect(res.status, bad).toBe(400);
    }
  });

  it('/examples escapes untrusted text and forbids scripts', async () => {
    const { app } = await setup();
    const res = await app.request('/examples?metric=groundedness&below=0.8');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;b&gt;Chimnabai&lt;/b&gt;');
    expect(html).toMatch(/<mark class="unsupported">&lt;script&gt;alert\(1\)&lt;\/script&gt; Napoleon built it<\/mark>/);
  });
});
