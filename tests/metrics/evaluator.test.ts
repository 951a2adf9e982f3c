/**
 * In-process evaluator: same semantics as the generated rules (mean below threshold AND enough
 * samples, held for `for`, kept for `keepFiringFor`), gauges, diagnosis text, notifications.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry, Gauge } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { diagnose, diagnosisText, DIAGNOSIS_PATTERNS } from '../../src/metrics/diagnosis.ts';
import { AlertEvaluator, type MetricAlertRule } from '../../src/metrics/evaluator.ts';
import { AlertNotifier, type AlertNotice } from '../../src/metrics/notifier.ts';
import { ScoreWindows } from '../../src/metrics/score-windows.ts';

const rule = (metric: string, threshold: number, over: Partial<MetricAlertRule> = {}): MetricAlertRule => ({
  metric,
  threshold,
  alert: true,
  window: '1m',
  windowMs: 60_000,
  minSamples: 5,
  forMs: 10_000,
  keepFiringForMs: 5_000,
  severity: 'page',
  on: 'raw',
  ...over,
});

function setup(now: { t: number }, notifier?: AlertNotifier) {
  const registry = new Registry();
  const alertActive = new Gauge({ name: 'a', help: 'a', labelNames: ['metric', 'severity'] as const, registers: [registry] });
  const diagnosisActive = new Gauge({ name: 'd', help: 'd', labelNames: ['component'] as const, registers: [registry] });
  const windows = new ScoreWindows({ retentionMs: 60_000, resolutionMs: 1_000, now: () => now.t });
  const rules = [
    rule('groundedness', 0.8),
    rule('source_query_coverage', 0.6, { alert: false }),
    rule('response_query_coverage', 0.6, { alert: false }),
  ];
  const evaluator = new AlertEvaluator({ rules, windows, alertActive, diagnosisActive, diagnosisWindowMs: 60_000, examplesUrl: 'http://x', now: () => now.t, intervalMs: 1_000, ...(notifier ? { notifier } : {}) });
  const gauge = async (name: string, labels: Record<string, string>) => {
    const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name)!;
    return m.values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))?.value;
  };
  return { windows, evaluator, gauge };
}

const lbl = (metric: string, service = 'rag') => ({ metric, judge: 'llm', service });

describe('diagnosis', () => {
  it("evaluates THELMA's table and words it with the means", () => {
    const thresholds = { source_query_coverage: 0.6, response_query_coverage: 0.6, groundedness: 0.8 };
    const d = diagnose({ source_query_coverage: 0.41, response_query_coverage: 0.38, groundedness: 0.9 }, thresholds);
    expect(d.map((x) => x.pattern.component)).toEqual(['retriever_or_corpus']);
    expect(d[0]!.text).toBe('likely component: retriever or source corpus — the sources miss parts of the questions (SQC 0.41) and answers are incomplete (RQC 0.38)');
    expect(diagnose({ source_query_coverage: 0.41, response_query_coverage: 0.9, groundedness: 0.5 }, thresholds).map((x) => x.pattern.id)).toEqual(['answers_beyond_sources']);
    expect(diagnose({ source_query_coverage: 0.9, response_query_coverage: 0.3 }, thresholds).map((x) => x.pattern.component)).toEqual(['prompt_or_generator']);
  });

  it('never guesses: a missing metric or threshold makes a pattern not apply', () => {
    expect(diagnose({ source_query_coverage: 0.1 }, { source_query_coverage: 0.6, response_query_coverage: 0.6 })).toEqual([]);
    expect(diagnose({ source_query_coverage: 0.1, response_query_coverage: 0.1 }, {})).toEqual([]);
    expect(diagnosisText(DIAGNOSIS_PATTERNS[1]!, { source_query_coverage: 0.5, response_query_coverage: 0.25 })).toContain('(RQC 0.25)');
  });
});

describe('AlertEvaluator', () => {
  it('does not fire on too few samples, fires after `for`, keeps firing, then resolves', async () => {
    const now = { t: 1_000_000 };
    const { windows, evaluator, gauge } = setup(now);
    for (let i = 0; i < 4; i++) windows.add(lbl('groundedness'), 0.1);
    expect(evaluator.evaluate()).toEqual([]);
    windows.add(lbl('groundedness'), 0.1, 1);
    expect(evaluator.evaluate().map((a) => a.state)).toEqual(['pending']);
    expect(await gauge('a', { metric: 'groundedness' })).toBe(0);
    now.t += 10_000;
    const [firing] = evaluator.evaluate();
    expect(firing).toMatchObject({ state: 'firing', metric: 'groundedness', service: 'rag', samples: 5 });
    expect(firing!.value).toBeCloseTo(0.1, 10);
    expect(await gauge('a', { metric: 'groundedness', severity: 'page' })).toBe(1);
    // Recovery: high scores with a large sampling weight pull the weighted mean above 0.8.
    windows.add(lbl('groundedness'), 1, 50);
    now.t += 1_000;
    expect(evaluator.evaluate().map((a) => a.state)).toEqual(['firing']);
    now.t += 5_000;
    expect(evaluator.evaluate()).toEqual([]);
    expect(await gauge('a', { metric: 'groundedness', severity: 'page' })).toBe(0);
  });

  it('uses the weighted mean: a low score with a large weight dominates', () => {
    const now = { t: 5_000_000 };
    const { windows, evaluator } = setup(now);
    for (let i = 0; i < 5; i++) windows.add(lbl('groundedness'), 1, 1);
    windows.add(lbl('groundedness'), 0, 20);
    const [a] = evaluator.evaluate();
    expect(a!.value).toBeCloseTo(5 / 25, 10);
  });

  it('forgets scores older than the window', () => {
    const now = { t: 9_000_000 };
    const { windows, evaluator } = setup(now);
    for (let i = 0; i < 10; i++) windows.add(lbl('groundedness'), 0.2);
    expect(evaluator.evaluate()).toHaveLength(1);
    now.t += 61_000;
    expect(evaluator.evaluate()).toEqual([]);
  });

  it('sets ragwatch_diagnosis_active and writes the diagnosis into the alert', async () => {
    const now = { t: 2_000_000 };
    const { windows, evaluator, gauge } = setup(now);
    for (let i = 0; i < 6; i++) {
      windows.add(lbl('groundedness'), 0.5);
      windows.add(lbl('source_query_coverage'), 0.4);
      windows.add(lbl('response_query_coverage'), 0.9);
    }
    const [a] = evaluator.evaluate();
    expect(a!.diagnosis).toBe(
      'likely component: prompt — the sources miss parts of the questions (SQC 0.40) and answers address the questions (RQC 0.90) and answers make claims the sources do not support (GR 0.50)',
    );
    expect(await gauge('d', { component: 'prompt' })).toBe(1);
    expect(await gauge('d', { component: 'retriever' })).toBe(0);
  });
});

describe('AlertNotifier', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  it('pushes firing alerts to Alertmanager each evaluation and posts webhook changes (firing, resolved)', async () => {
    const got: Array<{ url: string; body: unknown }> = [];
    server = createServer((req: IncomingMessage, res) => {
      let b = '';
      req.on('data', (d: Buffer) => (b += d.toString()));
      req.on('end', () => {
        got.push({ url: req.url ?? '', body: JSON.parse(b) });
        res.end('{}');
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const outcomes: string[] = [];
    const notifier = new AlertNotifier({ alertmanagerUrl: base, webhookUrl: `${base}/hook`, onResult: (t, o) => outcomes.push(`${t}:${o}`) });
    const now = { t: 3_000_000 };
    const { windows, evaluator } = setup(now, notifier);
    for (let i = 0; i < 5; i++) windows.add(lbl('groundedness'), 0.3);
    evaluator.evaluate();
    now.t += 10_000;
    evaluator.evaluate(); // fires
    now.t += 1_000;
    evaluator.evaluate(); // still firing: Alertmanager re-send only
    windows.add(lbl('groundedness'), 1, 100);
    now.t += 6_000;
    evaluator.evaluate(); // resolved
    await evaluator.shutdown();
    const am = got.filter((g) => g.url === '/api/v2/alerts').map((g) => g.body as AlertNotice[]);
    const hook = got.filter((g) => g.url === '/hook').map((g) => g.body as { status: string; alerts: AlertNotice[] });
    expect(am.map((b) => b.map((n) => n.status))).toEqual([['firing'], ['firing'], ['resolved']]);
    expect(am[0]![0]!.labels).toMatchObject({ alertname: 'RagwatchGroundednessLow', metric: 'groundedness', service: 'rag', severity: 'page' });
    expect(hook.map((h) => h.status)).toEqual(['firing', 'resolved']);
    expect(hook[0]!.alerts[0]!.annotations.summary).toMatch(/^groundedness 0\.30 < 0\.8 over 1m \(n=5\) for rag$/);
    expect(outcomes.filter((o) => o.endsWith(':ok'))).toHaveLength(5);
  });
});
