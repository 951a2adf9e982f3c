/**
 * Issue 6 acceptance against real components on loopback: `ragwatch start` (in-process, with a
 * deterministic lexical test judge) scraped by a real Prometheus 2.42 loading the rules from
 * `generateRules`, a real Alertmanager 0.25 notifying a webhook receiver in the test, and two
 * extra scorer replicas for the multi-replica weighted-mean check. Windows are shortened via
 * config (10 s window, `for: 2s`, 1 s scrape/evaluation) to keep the test well under 2 minutes.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../../src/roles/start.ts';
import { loadConfig } from '../../src/config/load.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { generateRules } from '../../src/roles/rules.ts';
import { Scorer } from '../../src/scorer/scorer.ts';
import { createApiApp } from '../../src/server/api-app.ts';
import { listen, type RunningServer } from '../../src/roles/serve.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';
import { hexId, openInferenceTrace, postOtlp } from '../helpers/otlp.ts';
import { freePort, metricValue, waitFor } from '../helpers/process.ts';
import { haveBinaries, promAlerts, promQuery, scratchDir, startAlertmanager, startPrometheus, type LoopbackProcess } from '../helpers/prometheus.ts';

const SERVICE = 'rag-e2e';
const GROUNDED = {
  query: 'When was the Chimnabai Clock Tower completed?',
  documents: [{ id: 'doc-1', content: 'The Chimnabai Clock Tower in Vadodara was completed in 1896 and named after Chimnabai I.' }],
  response: 'The Chimnabai Clock Tower was completed in 1896.',
};
// Sources miss the question (SQC 0), the answer addresses it (RQC 1) but is unsupported (GR 0).
const UNGROUNDED = {
  query: 'When was the Harbour Bridge opened?',
  documents: [{ id: 'doc-9', content: 'The city library opens at nine in the morning.' }],
  response: 'The Harbour Bridge opened in 1932 with a grand parade.',
};

interface WebhookPayload {
  status: 'firing' | 'resolved';
  alerts: Array<{ status: string; labels: Record<string, string>; annotations: Record<string, string> }>;
}

describe.skipIf(!haveBinaries('live Prometheus/Alertmanager test', 'prometheus', 'prometheus-alertmanager'))('live Prometheus + Alertmanager', () => {
  const scratch = scratchDir('ragwatch-live-');
  const webhooks: WebhookPayload[] = [];
  let receiver: Server | undefined;
  let am: LoopbackProcess | undefined;
  let prom: LoopbackProcess | undefined;
  let app: RunningApp | undefined;
  const replicas: RunningServer[] = [];
  let traffic: NodeJS.Timeout | undefined;
  let mode: 'grounded' | 'ungrounded' = 'grounded';
  let metricsUrl = '';
  let otlpUrl = '';
  const replicaScorers: Array<{ scorer: Scorer; instruments: ReturnType<typeof createInstruments> }> = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        webhooks.push(JSON.parse(body) as WebhookPayload);
        res.end();
      });
    });
    const receiverPort = await freePort();
    await new Promise<void>((r) => receiver!.listen(receiverPort, '127.0.0.1', r));
    am = await startAlertmanager(scratch.dir, `http://127.0.0.1:${receiverPort}/alerts`);

    const [httpPort, otlpPort] = [await freePort(), await freePort()];
    metricsUrl = `http://127.0.0.1:${httpPort}`;
    otlpUrl = `http://127.0.0.1:${otlpPort}`;
    const config = loadConfig({
      env: {},
      overrides: {
        server: { httpPort, otlpPort, otlpGrpcPort: 0 },
        capture: { traceIdleMs: 100 },
        metrics: { windowMs: 10_000 },
        alerts: {
          ruleInterval: '1s',
          evaluationIntervalMs: 500,
          keepFiringFor: '2s',
          alertmanager: { url: am.url },
          metrics: {
            groundedness: { threshold: 0.7, window: '10s', minSamples: 5, for: '2s', severity: 'page' },
            // SQC's threshold sits above groundedness's so that, as bad traffic mixes in, the
            // diagnosis pattern holds before the groundedness alert starts.
            source_query_coverage: { threshold: 0.75, alert: false },
            response_query_coverage: { threshold: 0.6, alert: false },
          },
        },
      },
    });
    app = await startApp(config, undefined, { judge: new LexicalJudge() });
    await app.pipeline.start();

    // Two scorer replicas with their own registries (as two `ragwatch scorer` pods would have).
    for (let i = 0; i < 2; i++) {
      const instruments = createInstruments({ processMetrics: false });
      instruments.score.zero({ metric: 'groundedness', judge: 'llm', service: 'replicas' });
      replicaScorers.push({ scorer: new Scorer({ judge: new LexicalJudge(), instruments, onRecord: (r) => replicaRecords.push(r) }), instruments });
      replicas.push(await listen(createApiApp({ registry: instruments.registry, ready: () => true }), '127.0.0.1', 0));
    }

    const rules = scratch.write('rules.yml', generateRules(config));
    prom = await startPrometheus({
      dir: scratch.dir,
      targets: [`127.0.0.1:${httpPort}`, ...replicas.map((r) => `127.0.0.1:${r.port}`)],
      ruleFiles: [rules],
      alertmanager: am.url.replace('http://', ''),
      extraArgs: ['--enable-feature=exemplar-storage'],
    });
    traffic = setInterval(() => void send(mode === 'grounded' ? GROUNDED : UNGROUNDED), 200);
  }, 60_000);

  const replicaRecords: ScoreRecord[] = [];
  const sentUngrounded: string[] = [];

  async function send(req: typeof GROUNDED): Promise<void> {
    const traceId = hexId(16);
    if (req === UNGROUNDED) sentUngrounded.push(traceId);
    const { body } = openInferenceTrace({ ...req, service: SERVICE, traceId, startMs: Date.now() - 1_000 });
    await postOtlp(`${otlpUrl}/v1/traces`, JSON.stringify(body)).catch(() => undefined);
  }

  afterAll(async () => {
    if (traffic) clearInterval(traffic);
    await prom?.stop();
    await am?.stop();
    await app?.shutdown();
    await Promise.all(replicas.map((r) => r.close()));
    await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
    scratch.cleanup();
  });

  const firing = async () => (await promAlerts(prom!.url)).filter((a) => a.labels.alertname === 'RagwatchGroundednessLow' && a.state === 'firing');
  const alertActive = async () => metricValue(await (await fetch(`${metricsUrl}/metrics`)).text(), 'ragwatch_alert_active', { metric: 'groundedness', severity: 'page' });

  it('grounded traffic: mean recorded above threshold, alert inactive', async () => {
    const [mean] = await waitFor(async () => {
      const r = await promQuery(prom!.url, `ragwatch:score_ratio:mean_rate10s{metric="groundedness",service="${SERVICE}"}`);
      const n = await promQuery(prom!.url, `ragwatch:score_samples:increase10s{metric="groundedness",service="${SERVICE}"} >= 5`);
      return r.length > 0 && n.length > 0 ? r : undefined;
    }, 30_000, 500);
    expect(Number(mean!.value[1])).toBeCloseTo(1, 6);
    expect(await firing()).toEqual([]);
    expect(await alertActive()).toBe(0);
    // Prometheus scraped the OpenMetrics exposition of every target.
    const up = await promQuery(prom!.url, 'up');
    expect(up.map((s) => s.value[1])).toEqual(['1', '1', '1']);
  }, 40_000);

  it('ungrounded traffic: fires in Prometheus, in ragwatch_alert_active, and reaches the webhook with the diagnosis', async () => {
    mode = 'ungrounded';
    const [alert] = await waitFor(async () => {
      const f = await firing();
      return f.length > 0 ? f : undefined;
    }, 40_000, 500);
    expect(alert!.labels).toMatchObject({ metric: 'groundedness', judge: 'llm', service: SERVICE, severity: 'page' });
    expect(Number(alert!.value)).toBeLessThan(0.7);
    expect(alert!.annotations.diagnosis).toMatch(/^likely component: prompt — the sources miss parts of the questions \(SQC 0\.\d\d\) and answers address the questions \(RQC 1\.00\) and answers make claims the sources do not support \(GR 0\.\d\d\)/);
    expect(alert!.annotations.examples).toBe(`${metricsUrl}/examples?metric=groundedness&below=0.7&service=${SERVICE}`);
    await waitFor(async () => (await alertActive()) === 1, 15_000, 250);

    const fired = await waitFor(() => {
      const alerts = webhooks.flatMap((w) => w.alerts).filter((a) => a.status === 'firing');
      const fromPrometheus = alerts.find((a) => a.labels.source === undefined);
      const inProcess = alerts.find((a) => a.labels.source === 'ragwatch');
      return fromPrometheus && inProcess ? { fromPrometheus, inProcess } : undefined;
    }, 20_000, 250);
    expect(fired.fromPrometheus.labels).toMatchObject({ alertname: 'RagwatchGroundednessLow', service: SERVICE });
    expect(fired.fromPrometheus.annotations.diagnosis).toContain('likely component: prompt');
    expect(fired.inProcess.annotations.diagnosis).toContain('likely component: prompt');
    expect(fired.inProcess.annotations.summary).toMatch(/^groundedness 0\.\d\d < 0\.7 over 10s \(n=\d+\) for rag-e2e$/);

    // The low-scoring answers behind the alert are on the examples API, with their trace ids.
    const examples = (await (await fetch(`${metricsUrl}/api/examples?metric=groundedness&below=0.7&limit=5`)).json()) as { examples: Array<{ record: ScoreRecord; response: string }> };
    expect(examples.examples.length).toBeGreaterThan(0);
    expect(sentUngrounded).toContain(examples.examples[0]!.record.traceId);
    expect(examples.examples[0]!.response).toBe(UNGROUNDED.response);
    // Exemplars carry trace ids of scored triplets (OpenMetrics exposition, exemplar storage on).
    const now = Date.now() / 1000;
    const ex = (await (await fetch(`${prom!.url}/api/v1/query_exemplars?${new URLSearchParams({ query: `ragwatch_score_ratio_bucket{service="${SERVICE}"}`, start: String(now - 60), end: String(now) })}`)).json()) as {
      data: Array<{ exemplars: Array<{ labels: { trace_id: string } }> }>;
    };
    const traceIds = ex.data.flatMap((d) => d.exemplars.map((e) => e.labels.trace_id));
    expect(traceIds.some((t) => sentUngrounded.includes(t))).toBe(true);
  }, 80_000);

  it('grounded again: the alert resolves everywhere and the webhook gets the resolved notifications', async () => {
    mode = 'grounded';
    await waitFor(async () => (await firing()).length === 0, 40_000, 500);
    await waitFor(async () => (await alertActive()) === 0, 15_000, 250);
    const resolved = await waitFor(() => {
      // Both alerts share a notification group (alertname, service): a payload may mix statuses.
      const alerts = webhooks.flatMap((w) => w.alerts).filter((a) => a.status === 'resolved');
      const fromPrometheus = alerts.find((a) => a.labels.source === undefined);
      const inProcess = alerts.find((a) => a.labels.source === 'ragwatch');
      return fromPrometheus && inProcess ? { fromPrometheus, inProcess } : undefined;
    }, 20_000, 250).catch((err: unknown) => {
      throw new Error(`${String(err)}; webhooks: ${JSON.stringify(webhooks.map((w) => [w.status, w.alerts.map((a) => [a.status, a.labels.source ?? 'prometheus'])]))}`);
    });
    expect(resolved.fromPrometheus.annotations.diagnosis).toBeDefined();
    expect(resolved.inProcess.labels).toMatchObject({ alertname: 'RagwatchGroundednessLow', metric: 'groundedness' });
  }, 80_000);

  it('multi-replica: the PromQL mean over two scorers equals the weighted mean of all their scores', async () => {
    // Prometheus must have seen both replicas' zero series before the scores arrive, so rate() sees them.
    await waitFor(async () => (await promQuery(prom!.url, 'ragwatch_score_ratio_count{service="replicas"} == 0')).length === 2, 20_000, 250);
    const triplet = (req: typeof GROUNDED, weight: number): SampledTriplet => ({
      id: hexId(8),
      traceId: hexId(16),
      spanId: hexId(8),
      service: 'replicas',
      timestamp: new Date().toISOString(),
      query: req.query,
      sources: req.documents,
      response: req.response,
      latency: { durationMs: 100 },
      convention: 'openinference',
      sampling: { weight, stratum: 'default', rule: 'test' },
    });
    // Replica A: 30 grounded at weight 1; replica B: 10 ungrounded at weight 9 (sampled at p = 1/9).
    for (let i = 0; i < 30; i++) await replicaScorers[0]!.scorer.handle(triplet(GROUNDED, 1));
    for (let i = 0; i < 10; i++) await replicaScorers[1]!.scorer.handle(triplet(UNGROUNDED, 9));
    const g = replicaRecords.map((r) => ({ s: r.scores.groundedness!, w: r.weight }));
    const expected = g.reduce((a, x) => a + x.s * x.w, 0) / g.reduce((a, x) => a + x.w, 0);
    const meanOfReplicaMeans = (1 + 0) / 2;
    await waitFor(async () => Number((await promQuery(prom!.url, 'sum(ragwatch_score_samples_total{service="replicas",metric="groundedness"})'))[0]?.value[1]) === 40, 20_000, 250);
    const [exact] = await promQuery(prom!.url, 'sum(ragwatch_score_ratio_sum{service="replicas",metric="groundedness"}) / sum(ragwatch_score_ratio_count{service="replicas",metric="groundedness"})');
    expect(Number(exact!.value[1])).toBeCloseTo(expected, 9);
    // The generated rules' form (sum of rates / sum of rates) over a window holding all the scores.
    const [windowed] = await promQuery(prom!.url, 'sum(rate(ragwatch_score_ratio_sum{service="replicas",metric="groundedness"}[1m])) / sum(rate(ragwatch_score_ratio_count{service="replicas",metric="groundedness"}[1m]))');
    expect(Math.abs(Number(windowed!.value[1]) - expected)).toBeLessThan(0.02);
    expect(Math.abs(expected - meanOfReplicaMeans)).toBeGreaterThan(0.2);
  }, 40_000);
});
