/**
 * Exams end to end with the demo RAG service: two releases take the example exam — 1.0 with the full
 * index, 1.1 whose index lost every other page (a weaker retriever) — through `ragwatch exam take`.
 * `ragwatch exam report --json` ranks them with 95 % θ intervals that do not overlap and says 1.1
 * regressed; `ragwatch start` with the exam listed exports θ, accuracy and the regression series and
 * serves /exams (screenshot in Chromium for docs/exams.md); RagwatchExamRegression fires in promtool.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadConfig } from '../../src/config/load.ts';
import type { ExamReport } from '../../src/exams/report.ts';
import { generateRules } from '../../src/roles/rules.ts';
import { startDemoRag } from '../../scripts/demo-rag/service.ts';
import { inChromium } from '../helpers/chromium.ts';
import { haveBinaries, promtool, scratchDir } from '../helpers/prometheus.ts';
import { BIN, ROOT, freePort, metricValue, spawnRagwatch, waitFor, type RagwatchProcess } from '../helpers/process.ts';

const run = promisify(execFile);
const EXAM = join(ROOT, 'config', 'exams', 'example', 'exam.yaml');

describe('exams end to end: two releases of the demo service', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ragwatch-exam-e2e-'));
  const env = { ...process.env, RAGWATCH_DATA_DIR: join(dir, 'data'), RAGWATCH_LOG_LEVEL: 'warn' };
  const services: Array<{ close: () => Promise<void> }> = [];
  let start: RagwatchProcess | undefined;
  beforeAll(async () => {
    const full = await startDemoRag();
    const stale = await startDemoRag({ index: 'stale' });
    services.push(full, stale);
    const suite = parse(readFileSync(join(ROOT, 'config', 'exams', 'example', 'suite.yaml'), 'utf8')) as { exam: string; target: { url: string } };
    suite.exam = EXAM;
    for (const [name, url] of [['full', full.url], ['stale', stale.url]] as const) writeFileSync(join(dir, `${name}.yaml`), stringify({ ...suite, target: { ...suite.target, url } }));
  });
  afterAll(async () => {
    if (start && start.child.exitCode === null) {
      start.child.kill('SIGKILL');
      await start.exited;
    }
    for (const s of services) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ranks the releases with separate intervals and flags the weaker one', async () => {
    const take = async (suite: string, taker: string) => JSON.parse((await run(process.execPath, [BIN, 'exam', 'take', join(dir, `${suite}.yaml`), '--taker', taker, '--json'], { cwd: ROOT, env })).stdout) as { correct: number; unparsed: number; accuracy: number };
    const a = await take('full', '1.0');
    const b = await take('stale', '1.1');
    expect(a.accuracy).toBeGreaterThan(b.accuracy);
    expect(b.unparsed).toBeGreaterThan(0); // "I don't know." is not an option: counted apart
    const report = JSON.parse((await run(process.execPath, [BIN, 'exam', 'report', '--exam', EXAM, '--json'], { cwd: ROOT, env })).stdout) as ExamReport;
    expect(report.takers.map((t) => t.taker)).toEqual(['1.0', '1.1']);
    const [r1, r2] = report.takers as [ExamReport['takers'][number], ExamReport['takers'][number]];
    expect(r1.theta - 1.96 * r1.se).toBeGreaterThan(r2.theta + 1.96 * r2.se);
    expect(report.regression).toMatchObject({ taker: '1.1', previous: '1.0', regressed: true });
    expect(Object.keys(r1.byBloom).length).toBeGreaterThan(0);
    expect(r1.byQuestionWord.who?.n).toBeGreaterThan(0);
  }, 120_000);

  it('ragwatch start exports the exam series and serves /exams', async () => {
    const [otlp, http] = [await freePort(), await freePort()];
    start = spawnRagwatch(['start'], { RAGWATCH_DATA_DIR: env.RAGWATCH_DATA_DIR, RAGWATCH_EXAM_FILES: EXAM, RAGWATCH_OTLP_PORT: String(otlp), RAGWATCH_OTLP_GRPC_PORT: '0', RAGWATCH_HTTP_PORT: String(http), RAGWATCH_LOG_LEVEL: 'warn' });
    const url = `http://127.0.0.1:${http}`;
    const metrics = await waitFor(async () => {
      const text = await (await fetch(`${url}/metrics`).catch(() => undefined))?.text();
      return text?.includes('ragwatch_exam_regression{') ? text : undefined;
    }, 60_000, 250);
    expect(metricValue(metrics, 'ragwatch_exam_regression', { exam: 'acme_example', taker: '1.1', previous: '1.0' })).toBe(1);
    expect(metricValue(metrics, 'ragwatch_exam_theta', { exam: 'acme_example', taker: '1.0' })).toBeGreaterThan(metricValue(metrics, 'ragwatch_exam_theta', { exam: 'acme_example', taker: '1.1' })!);
    expect(metricValue(metrics, 'ragwatch_exam_accuracy_ratio', { taker: '1.1' })).toBeLessThan(0.8);
    const html = await (await fetch(`${url}/exams`)).text();
    expect(html).toContain('Regression: <b>1.1</b>');
    expect(html).toContain('aria-label="item characteristic curves"');
    if (haveBinaries('exams page screenshot', 'chromium')) {
      await inChromium({ url: `${url}/exams`, width: 1200, height: 800, screenshot: 'exams-page.png' }, async (page) => {
        expect(await page.locator('svg[aria-label="exam information curve"] polyline').count()).toBe(1);
      });
    }
  }, 120_000);
});

describe.skipIf(!haveBinaries('promtool exam rule test', 'promtool'))('exam rule × promtool', () => {
  const s = scratchDir('ragwatch-exam-rules-');
  afterAll(() => s.cleanup());

  it('RagwatchExamRegression fires for the regressed release only', () => {
    const rules = s.write('rules.yml', generateRules(loadConfig({ env: {} })));
    const test = {
      rule_files: [rules],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: [
            { series: 'ragwatch_exam_regression{job="ragwatch",exam="acme",taker="1.1",previous="1.0"}', values: '1x10' },
            { series: 'ragwatch_exam_regression{job="ragwatch",exam="docs",taker="2.0",previous="1.9"}', values: '0x10' },
          ],
          alert_rule_test: [
            { eval_time: '2m', alertname: 'RagwatchExamRegression', exp_alerts: [{ exp_labels: { severity: 'ticket', exam: 'acme', taker: '1.1', previous: '1.0' }, exp_annotations: {} as Record<string, string> }] },
          ],
        },
      ],
    };
    // promtool compares annotations exactly: take the generated ones.
    const rule = generateRules(loadConfig({ env: {} })).groups.find((g) => g.name === 'ragwatch-exam-alerts')!.rules[0] as { annotations: Record<string, string> };
    const labels: Record<string, string> = { taker: '1.1', previous: '1.0', exam: 'acme' };
    test.tests[0]!.alert_rule_test[0]!.exp_alerts[0]!.exp_annotations = Object.fromEntries(Object.entries(rule.annotations).map(([k, v]) => [k, v.replace(/\{\{ \$labels\.(\w+) \}\}/g, (_, l: string) => labels[l] ?? '')]));
    expect(test.tests[0]!.alert_rule_test[0]!.exp_alerts[0]!.exp_annotations.summary).toBe('release 1.1 is less able than 1.0 on exam acme');
    const r = promtool(['test', 'rules', s.write('exam_rules_test.yml', test)]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('SUCCESS');
  });
});
