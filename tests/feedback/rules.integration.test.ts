/**
 * The alert on a rise of the negative feedback share, like any flagged share: the generated rules pass
 * `promtool check rules` and `promtool test rules` (fires for a service whose negative share rose from 5 %
 * to 40 %, not for one that stayed at 5 %), and the in-process monitor, fed the same traffic on a
 * simulated clock, fires for the same service only.
 */
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { changeVerdict } from '../../src/change/statistic.ts';
import { loadConfig } from '../../src/config/load.ts';
import { FeedbackMonitor } from '../../src/feedback/monitor.ts';
import { feedbackTiersFromConfig } from '../../src/feedback/rules.ts';
import { generateRules } from '../../src/roles/rules.ts';
import { haveBinaries, promtool, scratchDir } from '../helpers/prometheus.ts';
import { counterValues } from '../helpers/promtool-series.ts';

const config = loadConfig({ env: {}, overrides: { alerts: { change: { page: { window: '30m', shortWindow: '5m', baseline: '2h' }, ticket: { enabled: false } } }, feedback: { alert: { minBaselineSamples: 50, minSamples: 10 } } } });
const MINUTES = 190;
const ROSE_AT = 160;
/** Feedback per minute: 10, of which 5 % negative, then 40 % negative from ROSE_AT on (service rag); calm stays at 5 %. */
const negativePerMinute = (service: string, i: number) => (service === 'rag' && i > ROSE_AT ? 4 : 0.5);

describe.skipIf(!haveBinaries('feedback rules', 'promtool'))('negative feedback alert: generated rules', () => {
  const s = scratchDir('ragwatch-feedback-rules-');
  afterAll(() => s.cleanup());

  it('promtool checks them and fires for the service whose negative share rose, not for the calm one', () => {
    const rules = s.write('rules.yml', generateRules(config));
    const check = promtool(['check', 'rules', rules]);
    expect(check.status, check.stdout + check.stderr).toBe(0);
    const input: Array<{ series: string; values: string }> = [];
    for (const service of ['rag', 'calm']) {
      input.push({ series: `ragwatch_feedback_total{service="${service}",release="1",value="negative"}`, values: counterValues(MINUTES, (i) => negativePerMinute(service, i)) });
      input.push({ series: `ragwatch_feedback_total{service="${service}",release="1",value="positive"}`, values: counterValues(MINUTES, (i) => 10 - negativePerMinute(service, i)) });
    }
    const test = {
      rule_files: [rules],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: input,
          // ALERTS series (the annotation carries the z value, which promtool's alert tests would compare literally).
          promql_expr_test: [
            { expr: 'ALERTS{alertname="RagwatchNegativeFeedbackRise"}', eval_time: `${ROSE_AT - 5}m`, exp_samples: [] },
            {
              expr: 'ALERTS{alertname="RagwatchNegativeFeedbackRise",alertstate="firing"}',
              eval_time: `${MINUTES}m`,
              exp_samples: [{ labels: 'ALERTS{alertname="RagwatchNegativeFeedbackRise",alertstate="firing",kind="feedback",service="rag",severity="page"}', value: 1 }],
            },
          ],
        },
      ],
    };
    const file = s.write('rules_test.yml', test);
    const r = promtool(['test', 'rules', file]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('SUCCESS');
  });
});

describe('negative feedback alert: in process', () => {
  it('fires for the same service on the same traffic, on a simulated clock', () => {
    let now = Date.UTC(2026, 10, 1);
    const start = now;
    const monitor = new FeedbackMonitor({ registry: new Registry(), windowMs: 30 * 60_000, tiers: feedbackTiersFromConfig(config), verdict: changeVerdict, now: () => now });
    const firedAt: Record<string, number | undefined> = {};
    let id = 0;
    for (let i = 1; i <= MINUTES; i++) {
      now = start + i * 60_000;
      for (const service of ['rag', 'calm']) {
        // 10 items a minute, every other minute one more negative so the per-minute share is 5 % (0.5 a minute) on average.
        const negatives = negativePerMinute(service, i) === 0.5 ? i % 2 : 4;
        for (let k = 0; k < 10; k++) monitor.add({ id: String(id++), traceId: 'a'.repeat(32), kind: 'thumbs', value: k < negatives ? 0 : 1, polarity: k < negatives ? 'negative' : 'positive', service, source: 'api', createdMs: now });
      }
      for (const f of monitor.evaluate()) firedAt[f.service] ??= i;
    }
    expect(firedAt.calm).toBeUndefined();
    expect(firedAt.rag).toBeGreaterThan(ROSE_AT);
    expect(firedAt.rag).toBeLessThanOrEqual(ROSE_AT + 10);
  });
});
