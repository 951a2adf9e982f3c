/**
 * The prober's schedule and alerts with a scripted service: runs follow `schedule.every`, a run that
 * outlasts its period makes the next one skip (counted), shutdown abandons a run; the probe alerts
 * fire on the suite's own thresholds, resolve, go stale after 3 periods without a completed run, and
 * reach a webhook as Alertmanager-shaped JSON.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { AlertNotifier } from '../../src/metrics/notifier.ts';
import { ProbeAlerts, type SuiteState } from '../../src/probes/alerts.ts';
import { ProbeInstruments } from '../../src/probes/metrics.ts';
import { Prober } from '../../src/probes/prober.ts';
import type { ProbeReport } from '../../src/probes/runner.ts';
import { probeSuiteSchema, type ProbeSuite } from '../../src/probes/suite.ts';
import type { TargetReply } from '../../src/probes/target.ts';
import type { ProbeQuery } from '../../src/probes/types.ts';

function suite(name: string, every = '1s', alerts: Record<string, unknown> = {}): ProbeSuite {
  return probeSuiteSchema.parse({
    suite: name,
    csv: 'facts',
    target: { url: 'http://127.0.0.1:1/ask', answerPath: 'answer' },
    templates: [{ name: 'capital', sql: 'SELECT 1', texts: ['x'] }],
    limits: { concurrency: 2, perMinute: 60_000 },
    schedule: { every },
    alerts,
  });
}

const queries = (s: string, n: number): ProbeQuery[] =>
  Array.from({ length: n }, (_, i) => ({ suite: s, template: 'capital', group: `g${i}`, variant: 'text:0', query: `q${i}`, fill: {}, truth: ['Paris'], match: 'contains', tolerance: 0 }));

const reply = (answer: string, traceId: string): TargetReply => ({ ok: true, answer, sources: undefined, traceId, durationMs: 1 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const probers: Prober[] = [];
afterEach(async () => {
  for (const p of probers.splice(0)) await p.shutdown();
});

describe('Prober schedule', () => {
  it('runs each suite on its period and counts the runs', async () => {
    const registry = new Registry();
    let asked = 0;
    const prober = new Prober({ suites: [{ suite: suite('fast'), queries: queries('fast', 4) }], instruments: new ProbeInstruments(registry), firstRunDelayMs: 0, joinTimeoutMs: 20, ask: async (_s, _q, id) => (asked++, reply('Paris.', id)) });
    probers.push(prober);
    prober.start();
    await sleep(2_300);
    const runs = (await registry.getSingleMetric('ragwatch_probe_runs_total')!.get()).values.find((v) => v.labels.status === 'completed')!.value;
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(runs).toBeLessThanOrEqual(3);
    expect(asked).toBe(4 * runs);
    expect(prober.last('fast')?.accuracy).toBe(1);
  });

  it('skips a tick while the previous run is still going, and shutdown abandons the run', async () => {
    const registry = new Registry();
    const prober = new Prober({ suites: [{ suite: suite('slow'), queries: queries('slow', 2) }], instruments: new ProbeInstruments(registry), firstRunDelayMs: 0, joinTimeoutMs: 20, ask: async (_s, _q, id) => (await sleep(1_600), reply('Paris.', id)) });
    probers.push(prober);
    prober.start();
    await sleep(1_300);
    const status = async () => Object.fromEntries((await registry.getSingleMetric('ragwatch_probe_runs_total')!.get()).values.map((v) => [v.labels.status, v.value]));
    expect(await status()).toMatchObject({ skipped_overlap: 1, completed: 0 });
    await prober.shutdown();
    expect(prober.last('slow')).toBeUndefined();
  });
});

describe('ProbeAlerts', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  const report = (accuracy: number | null, robustness: number | null, errors: number, queries = 10): ProbeReport => ({
    suite: 'acme', queries, outcomes: { correct: 0, wrong: 0, abstained: 0, error: errors }, accuracy, robustness,
    groups: { gap: 0, robust: 0, non_robust: 0 }, templates: [], failures: { retrieval: 0, generator: 0, unknown: 0 }, errors: {}, judges: [],
  });

  it('fire on the suite thresholds, resolve, and go stale after 3 periods; the webhook hears each change', async () => {
    const bodies: Array<{ status: string; alerts: Array<{ status: string; labels: Record<string, string> }> }> = [];
    server = createServer((req, res) => {
      let b = '';
      req.on('data', (c: Buffer) => (b += c.toString()));
      req.on('end', () => (bodies.push(JSON.parse(b)), res.end()));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const registry = new Registry();
    const instruments = new ProbeInstruments(registry);
    const notifier = new AlertNotifier({ webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` });
    const alerts = new ProbeAlerts({ instruments, notifier });
    const s: SuiteState = { suite: suite('acme', '1m', { minAccuracy: 0.8, minRobustness: 0.7, maxErrorRatio: 0.2, severity: 'ticket' }), periodMs: 60_000, sinceMs: 0 };
    const names = (t: number) => alerts.evaluate([s], t).map((n) => n.labels.alertname).sort();

    s.last = report(0.79, 0.7, 2);
    s.lastCompletedMs = 1_000;
    expect(names(1_000)).toEqual(['RagwatchProbeAccuracyLow']); // R 0.7 is not below 0.7; 2/10 errors not above 0.2
    s.last = report(0.9, 0.5, 3);
    expect(names(2_000)).toEqual(['RagwatchProbeErrorsHigh', 'RagwatchProbeRobustnessLow']);
    s.last = report(null, null, 10); // nothing answered: no ratio to compare, only the errors
    expect(names(3_000)).toEqual(['RagwatchProbeErrorsHigh']);
    s.last = report(0.9, 0.9, 0);
    expect(names(1_000 + 180_000)).toEqual([]); // exactly 3 periods: not yet stale
    expect(names(1_000 + 180_001)).toEqual(['RagwatchProbeStale']);
    const active = (await registry.getSingleMetric('ragwatch_probe_alert_active')!.get()).values.filter((v) => v.value === 1).map((v) => v.labels);
    expect(active).toEqual([{ suite: 'acme', alert: 'RagwatchProbeStale', severity: 'ticket' }]);
    await notifier.forceFlush();
    // Changes only (in any arrival order): accuracy fires; it resolves as R and errors fire; R resolves; errors resolve; stale fires.
    expect(bodies.map((b) => b.alerts.map((a) => `${a.labels.alertname}:${a.status}`).sort().join(' ')).sort()).toEqual([
      'RagwatchProbeAccuracyLow:firing',
      'RagwatchProbeAccuracyLow:resolved RagwatchProbeErrorsHigh:firing RagwatchProbeRobustnessLow:firing',
      'RagwatchProbeErrorsHigh:resolved',
      'RagwatchProbeRobustnessLow:resolved',
      'RagwatchProbeStale:firing',
    ]);
    expect(bodies[0]!.alerts[0]!.labels).toMatchObject({ suite: 'acme', severity: 'ticket', source: 'ragwatch' });
  });
});
