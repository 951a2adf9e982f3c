/**
 * Issue 45 through `ragwatch start` (a real process, the LLM judge on the scripted OpenAI-compatible
 * server, the embedded judge alongside): each configured evaluator appears as `metric="<name>"` on the
 * Prometheus series, on the examples page with its reason, in `/api/status`, in `ragwatch rules` for the
 * same config (promtool passes), and in the exported registry the evaluators dashboard repeats its rows
 * over. An llm evaluator takes one call per triplet, whatever their number.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVALUATOR_VARIABLE_QUERY } from '../../dashboards/src/evaluators.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.ts';
import { oracleResponder, parsePrompt } from '../judges/helpers/oracle.ts';
import { CLOCK_TOWER, openInferenceTrace, postOtlp } from '../helpers/otlp.ts';
import { haveBinaries, promtool, scratchDir } from '../helpers/prometheus.ts';
import { BIN, ROOT, freePort, metricValue, spawnRagwatch, waitFor, type RagwatchProcess } from '../helpers/process.ts';
import { WORKED_EXAMPLES } from '../evaluators/worked-examples.ts';

const NAMES = WORKED_EXAMPLES.map((e) => e.name);
/** An answer that gives a dosage, cites no source and insults the user: every evaluator low. */
const BAD = { query: 'What can I take for a headache?', documents: [{ id: 'kb-4', content: 'Ibuprofen and paracetamol relieve headaches. Ask a pharmacist about the dose.' }], response: 'Take 800 mg of ibuprofen every four hours, you idiot.' };

describe('evaluators through ragwatch start', () => {
  const s = scratchDir('ragwatch-e2e-evaluators-');
  let fake: FakeOpenAI;
  let proc: RagwatchProcess;
  let configFile = '';
  let otlp = '';
  let http = '';

  beforeAll(async () => {
    fake = await startFakeOpenAI(oracleResponder());
    configFile = s.write('ragwatch.yaml', {
      judge: { kind: 'llm', model: 'judge-model', baseUrl: fake.baseURL, embedded: { alongside: true } },
      alerts: { examplesUrl: 'http://ragwatch.example' },
      evaluators: WORKED_EXAMPLES,
    });
    const [otlpPort, httpPort] = [await freePort(), await freePort()];
    otlp = `http://127.0.0.1:${otlpPort}`;
    http = `http://127.0.0.1:${httpPort}`;
    proc = spawnRagwatch(['start', '-c', configFile], { RAGWATCH_OTLP_PORT: String(otlpPort), RAGWATCH_OTLP_GRPC_PORT: '0', RAGWATCH_HTTP_PORT: String(httpPort), OPENAI_API_KEY: 'k' });
    await waitFor(async () => (await fetch(`${http}/readyz`)).ok, 60_000, 250);
    for (const req of [CLOCK_TOWER, BAD]) expect((await postOtlp(`${otlp}/v1/traces`, JSON.stringify(openInferenceTrace(req).body))).status).toBe(200);
    await waitFor(async () => {
      const text = await (await fetch(`${http}/metrics`)).text();
      return metricValue(text, 'ragwatch_triplets_scored_total', { judge: 'llm' }) === 2 && metricValue(text, 'ragwatch_companion_judged_total', { judge: 'embedded', outcome: 'scored' }) === 2;
    }, 60_000, 250);
  }, 120_000);

  afterAll(async () => {
    if (proc && proc.child.exitCode === null) {
      proc.child.kill('SIGKILL');
      await proc.exited;
    }
    await fake?.close();
    s.cleanup();
  });

  it('every evaluator is a metric="<name>" of the score series and of the exported registry (the dashboard’s rows)', async () => {
    const text = await (await fetch(`${http}/metrics`)).text();
    for (const name of NAMES) expect(metricValue(text, 'ragwatch_score_ratio_count', { metric: name, judge: 'llm' }), name).toBe(2);
    // The checks score next to the embedded companion too; the llm evaluators are not the embedded judge's to score.
    for (const name of ['cites_source', 'json_answer']) expect(metricValue(text, 'ragwatch_score_ratio_count', { metric: name, judge: 'embedded' }), name).toBe(2);
    expect(metricValue(text, 'ragwatch_score_ratio_count', { metric: 'no_dosage_advice', judge: 'embedded' })).toBeUndefined();
    // The evaluators dashboard's variable: the registry's evaluator metrics.
    const selector = /^label_values\(ragwatch_metric_info\{source=~"\.\+_evaluator"\}, metric\)$/;
    expect(EVALUATOR_VARIABLE_QUERY).toMatch(selector);
    const listed = text.split('\n').filter((l) => l.startsWith('ragwatch_metric_info{') && /source="(llm|check)_evaluator"/.test(l)).map((l) => /metric="([^"]+)"/.exec(l)![1]);
    expect(listed.sort()).toEqual([...NAMES].sort());
    // The low answer: every evaluator fails; the verdicts counter says which label.
    expect(metricValue(text, 'ragwatch_evaluator_verdicts_total', { metric: 'answer_tone', judge: 'llm', label: 'rude' })).toBe(1);
    expect(metricValue(text, 'ragwatch_evaluator_verdicts_total', { metric: 'no_dosage_advice', judge: 'llm', label: 'fail' })).toBe(1);
    // One extra call per triplet for the two llm evaluators.
    expect(fake.requests.filter((q) => parsePrompt(q).step === 'evaluators')).toHaveLength(2);
  });

  it('the examples page shows the low answer with each evaluator’s verdict and reason', async () => {
    const page = await (await fetch(`${http}/examples?metric=no_dosage_advice&below=0.99`)).text();
    expect(page).toContain('Take 800 mg of ibuprofen every four hours, you idiot');
    expect(page).toContain('<li data-metric="no_dosage_advice"><b>no_dosage_advice</b> <i>fail</i>: The response gives what the rubric forbids.</li>');
    expect(page).toContain('<li data-metric="answer_tone"><b>answer_tone</b> <i>rude</i>: The response insults the user.</li>');
    expect(page).toContain('<li data-metric="cites_source"><b>cites_source</b>: citesSource: no retrieved source is cited</li>');
    for (const name of NAMES) expect(page).toContain(`data-metric="${name}"`);
    expect(page).not.toContain('Chimnabai');
  });

  it('/api/status lists each evaluator: its definition, its alert settings and its windowed means', async () => {
    const status = (await (await fetch(`${http}/api/status`)).json()) as {
      config: { registry: Array<{ name: string; source: string; kind: string; judges: string[] }>; alerts: { metrics: Record<string, { threshold: number; severity: string }> } };
      means: Array<{ metric: string; judge: string; mean: number | null; threshold: number | null }>;
    };
    const evaluators = status.config.registry.filter((d) => d.source !== 'builtin');
    expect(evaluators.map((d) => [d.name, d.kind, d.judges.join('+')])).toEqual([['cites_source', 'boolean', 'llm+embedded+local'], ['no_dosage_advice', 'boolean', 'llm'], ['answer_tone', 'categorical', 'llm'], ['json_answer', 'boolean', 'llm+embedded+local']]);
    expect(status.config.alerts.metrics.cites_source).toMatchObject({ threshold: 0.9, severity: 'page' });
    for (const name of NAMES) expect(status.means.find((m) => m.metric === name && m.judge === 'llm'), name).toMatchObject({ mean: expect.any(Number), threshold: expect.any(Number) });
    expect(status.means.find((m) => m.metric === 'no_dosage_advice' && m.judge === 'llm')?.mean).toBe(0.5);
  });

  it.skipIf(!haveBinaries('ragwatch rules for the running config through promtool', 'promtool'))('ragwatch rules for the same config names each evaluator; promtool check rules passes', () => {
    const r = spawnSync(process.execPath, [BIN, 'rules', '-c', configFile], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, OPENAI_API_KEY: 'k' } });
    expect(r.status, r.stderr).toBe(0);
    for (const name of NAMES) expect(r.stdout).toContain(`{metric="${name}"}`);
    const check = promtool(['check', 'rules', s.write('rules.yml', r.stdout)]);
    expect(check.status, check.stdout + check.stderr).toBe(0);
  });
});
