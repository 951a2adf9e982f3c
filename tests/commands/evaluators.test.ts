/**
 * `ragwatch evaluators validate` and `ragwatch evaluators try`, through the CLI; the config errors each
 * named by key, in process too.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadConfig } from '../../src/config/load.ts';
import { ConfigError } from '../../src/errors.ts';
import { useFakeOpenAI } from '../fakes/openai-server.ts';
import { oracleResponder, parsePrompt } from '../judges/helpers/oracle.ts';
import { BIN, ROOT } from '../helpers/process.ts';

const fake = useFakeOpenAI((f) => f.setResponder(oracleResponder()));
const dir = mkdtempSync(join(tmpdir(), 'ragwatch-evaluators-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, 'evaluators', ...args], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', NODE_NO_WARNINGS: '1', ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Two checks and two llm evaluators: the worked examples of docs/evaluators.md. */
const FOUR = [
  { name: 'cites_source', description: 'The answer cites a retrieved source.', kind: 'check', check: { citesSource: true }, alerts: { threshold: 0.9 } },
  { name: 'json_answer', description: 'The answer is the JSON the front end renders.', kind: 'check', check: { jsonSchema: { type: 'object', required: ['answer'] } } },
  { name: 'no_dosage_advice', description: 'The answer gives no medication dosage.', kind: 'llm', rubric: 'Fail if the RESPONSE tells the user how much of a medicine to take.', inputs: ['response'], output: { type: 'boolean' }, alerts: { threshold: 0.99, severity: 'page' } },
  { name: 'answer_tone', description: 'The answer is courteous.', kind: 'llm', rubric: 'How does the RESPONSE address the user?', output: { type: 'categorical', labels: [{ label: 'courteous', value: 1 }, { label: 'curt', value: 0.5 }, { label: 'rude', value: 0 }] } },
];

function configFile(name: string, config: Record<string, unknown>): string {
  const file = join(dir, name);
  writeFileSync(file, stringify(config));
  return file;
}

function keysOf(evaluators: unknown[]): string[] {
  try {
    loadConfig({ env: {}, overrides: { evaluators } });
  } catch (err) {
    if (err instanceof ConfigError) return err.keys;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('ragwatch evaluators validate', () => {
  it('passes two checks and two llm evaluators, listing each as a metric', async () => {
    const r = await run(['validate', '-c', configFile('four.yaml', { evaluators: FOUR })]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('4 evaluators (at most 16) beside 17 built-in metrics');
    expect(r.stdout).toMatch(/cites_source\s+check boolean; alert below 0\.9 \(ticket, 30m\)/);
    expect(r.stdout).toMatch(/answer_tone\s+llm\s+categorical \(courteous=1, curt=0\.5, rude=0\), reads query, sources, response; alert below 0\.8/);
    expect(r.stdout).toContain('warning: 2 llm evaluators with judge.kind=embedded: skipped (no_llm_judge)');
    const json = await run(['validate', '--json', '-c', configFile('four.yaml', { evaluators: FOUR })]);
    const defs = (JSON.parse(json.stdout) as { evaluators: Array<{ name: string; kind: string; judges: string[] }> }).evaluators;
    expect(defs.map((d) => [d.name, d.kind, d.judges.join('+')])).toEqual([['cites_source', 'boolean', 'llm+embedded+local'], ['json_answer', 'boolean', 'llm+embedded+local'], ['no_dosage_advice', 'boolean', 'llm'], ['answer_tone', 'categorical', 'llm']]);
  });

  it('fails (exit 2) naming the key of a misspelt key, a duplicate, a built-in name, an unsafe pattern and a bad JSON Schema', async () => {
    const bad = [
      { ...FOUR[0], check: { citesSourc: true } },
      { ...FOUR[1], name: 'cites_source' },
      { ...FOUR[2], name: 'groundedness' },
      { name: 'no_competitor', description: 'd', kind: 'check', check: { mustNotMatch: '(\\w+\\s?)*acme' } },
      { name: 'json_shape', description: 'd', kind: 'check', check: { jsonSchema: { type: 'object', requried: ['answer'] } } },
    ];
    const r = await run(['validate', '-c', configFile('bad.yaml', { evaluators: bad })]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    for (const line of [
      'config key "evaluators.0.check.citesSourc": unknown key',
      'config key "evaluators.1.name": "cites_source" is already the name of evaluators.0',
      'config key "evaluators.2.name": "groundedness" is a built-in metric',
      'config key "evaluators.3.check.mustNotMatch": pattern refused: nested quantifier',
      'config key "evaluators.4.check.jsonSchema": not a usable JSON Schema: strict mode: unknown keyword: "requried"',
    ]) expect(r.stderr).toContain(line);
    // Each alone, too.
    expect(keysOf([bad[0]])).toContain('evaluators.0.check.citesSourc');
    expect(keysOf([FOUR[0], bad[1]])).toEqual(['evaluators.1.name']);
    expect(keysOf([bad[2]])).toEqual(['evaluators.0.name']);
    expect(keysOf([bad[3]])).toEqual(['evaluators.0.check.mustNotMatch']);
    expect(keysOf([bad[4]])).toEqual(['evaluators.0.check.jsonSchema']);
  }, 30_000);

  it('refuses what does not fit the kind, and more than 16 evaluators', () => {
    expect(keysOf([{ ...FOUR[2], rubric: undefined }])).toEqual(['evaluators.0.rubric']);
    expect(keysOf([{ ...FOUR[0], rubric: 'x' }])).toEqual(['evaluators.0.rubric']);
    expect(keysOf([{ ...FOUR[3], output: { type: 'categorical' } }])).toEqual(['evaluators.0.output.labels']);
    expect(keysOf([{ ...FOUR[0], check: { citesSource: true, maxChars: 10 } }])).toEqual(['evaluators.0.check']);
    expect(keysOf([{ ...FOUR[0], check: { citesSource: { pattern: '\\[\\d+\\]' } } }])).toEqual(['evaluators.0.check.citesSource.pattern']);
    expect(keysOf(Array.from({ length: 17 }, (_, i) => ({ ...FOUR[0], name: `rule_${i}` })))).toEqual(['evaluators']);
    expect(keysOf([{ ...FOUR[0], name: 'Cites Source' }])).toEqual(['evaluators.0.name']);
  });

  it('an evaluator’s alert settings go to alerts.metrics; alerts.metrics itself may not name it', () => {
    const c = loadConfig({ env: {}, overrides: { evaluators: FOUR } });
    expect(c.alerts.metrics.cites_source).toMatchObject({ threshold: 0.9, severity: 'ticket', alert: true, window: '30m', minSamples: 20, on: 'raw' });
    expect(c.alerts.metrics.no_dosage_advice).toMatchObject({ threshold: 0.99, severity: 'page' });
    expect(c.alerts.metrics.groundedness).toBeDefined();
    expect(() => loadConfig({ env: {}, overrides: { evaluators: FOUR, alerts: { metrics: { cites_source: { threshold: 0.5 } } } } })).toThrow('"cites_source" is an evaluator: set its alert settings in evaluators.0.alerts');
  });

  it('each evaluator is a label concept of its own (human labels calibrate it), with its review question when it has one', () => {
    const c = loadConfig({ env: {}, overrides: { evaluators: [{ ...FOUR[0], question: 'Does the answer cite one of its sources?' }, FOUR[2]] } });
    expect(c.calibration.labelMetrics).toMatchObject({ cites_source: ['cites_source'], no_dosage_advice: ['no_dosage_advice'], groundedness: expect.any(Array) });
    expect(c.calibration.questions.cites_source).toBe('Does the answer cite one of its sources?');
    expect(c.calibration.questions.no_dosage_advice).toBeUndefined();
    // A concept of the user's that already names the evaluator keeps it.
    const mine = loadConfig({ env: {}, overrides: { evaluators: [FOUR[0]], calibration: { labelMetrics: { cited: ['cites_source'] } } } });
    expect(mine.calibration.labelMetrics).toEqual({ cited: ['cites_source'] });
  });

  it('reads a directory of evaluator files (one or a list per file, in file-name order) relative to the config, and names the file of a bad one', async () => {
    const evDir = join(dir, 'conf', 'evaluators');
    mkdirSync(evDir, { recursive: true });
    writeFileSync(join(evDir, '10-checks.yaml'), stringify([FOUR[0], FOUR[1]]));
    writeFileSync(join(evDir, '20-tone.yml'), stringify(FOUR[3]));
    writeFileSync(join(evDir, 'README.md'), 'not read');
    const file = join(dir, 'conf', 'ragwatch.yaml');
    writeFileSync(file, stringify({ evaluators: 'evaluators' }));
    expect(loadConfig({ env: {}, file }).evaluators.map((e) => e.name)).toEqual(['cites_source', 'json_answer', 'answer_tone']);
    writeFileSync(join(evDir, '30-bad.yaml'), stringify({ ...FOUR[2], output: { type: 'yes_no' } }));
    const r = await run(['validate', '-c', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`config key "evaluators.3.output.type" (from file ${join(evDir, '30-bad.yaml')})`);
  }, 30_000);
});

describe('ragwatch evaluators try', () => {
  const lines = [
    { id: 't1', traceId: 'a1', spanId: 's', service: 'shop', timestamp: '2026-01-01T00:00:00Z', query: 'How long do returns take?', sources: [{ id: 'policy-7', content: 'Returns are accepted within 30 days.' }], response: '{"answer": "Within 30 days [1]."}', latency: { durationMs: 1 }, convention: 'custom' },
    { id: 't2', traceId: 'a2', spanId: 's', service: 'shop', timestamp: '2026-01-01T00:00:01Z', query: 'What should I take for a headache?', sources: [{ content: 'Ibuprofen relieves headaches.' }], response: 'Take 400 mg of ibuprofen every six hours, you idiot.', latency: { durationMs: 1 }, convention: 'custom' },
    'not json',
  ];
  const triplets = join(dir, 'triplets.jsonl');
  writeFileSync(triplets, `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify({ triplet: l }))).join('\n')}\n`);

  it('with an LLM judge: one call per triplet, no built-in call; scores, reasons and a summary against the thresholds', async () => {
    const r = await run(['try', triplets, '-c', configFile('llm.yaml', { judge: { kind: 'llm', baseUrl: fake.baseURL, model: 'judge-model' }, evaluators: FOUR })], { OPENAI_API_KEY: 'k' });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('line 3: not valid JSON');
    const out = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { line: number; tripletId: string; scores: Record<string, number>; explanations: Record<string, { label?: string; reason?: string; failed?: string[] }> });
    expect(out.map((o) => o.tripletId)).toEqual(['t1', 't2']);
    expect(out[0]!.scores).toEqual({ cites_source: 1, json_answer: 1, no_dosage_advice: 1, answer_tone: 1 });
    expect(out[1]!.scores).toEqual({ cites_source: 0, json_answer: 0, no_dosage_advice: 0, answer_tone: 0 });
    expect(out[1]!.explanations.answer_tone).toEqual({ label: 'rude', reason: 'The response insults the user.' });
    expect(out[1]!.explanations.json_answer?.failed).toEqual(['jsonSchema: not JSON']);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests.every((q) => parsePrompt(q).step === 'evaluators')).toBe(true);
    expect(r.stderr).toMatch(/ragwatch evaluators try: 3 triplets, 1 not judged; llm evaluators judged by judge-model in 2 calls, \d+ input \+ \d+ output tokens/);
    expect(r.stderr).toMatch(/no_dosage_advice\s+llm\s+mean 0\.500\s+n=2\s+BELOW its threshold 0\.99 \(would alert: page\)/);
  }, 30_000);

  it('with the embedded judge and -e FILE (a criterion not yet in the config): the checks score, the llm evaluators are skipped, never scored', async () => {
    const candidate = join(dir, 'candidate.yaml');
    writeFileSync(candidate, stringify([FOUR[0], FOUR[2]]));
    const r = await run(['try', triplets, '-e', candidate, '--limit', '2']);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { scores: Record<string, number>; skipped: Record<string, string> });
    expect(out.map((o) => o.scores)).toEqual([{ cites_source: 1 }, { cites_source: 0 }]);
    expect(out.map((o) => o.skipped)).toEqual([{ no_dosage_advice: 'no_llm_judge' }, { no_dosage_advice: 'no_llm_judge' }]);
    expect(r.stderr).toContain('llm evaluators skipped (judge.kind=embedded)');
    expect(r.stderr).toMatch(/no_dosage_advice\s+llm\s+mean\s+–\s+n=0\s+skipped: 2 no_llm_judge\s+no score/);
    expect(fake.requests).toHaveLength(0);
  }, 30_000);
});
