import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { COMMANDS } from '../../src/cli.ts';
import { scoreCommand } from '../../src/commands/score.ts';
import { scoreRecordSchema } from '../../src/triplet.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.ts';
import { oracleResponder } from '../judges/helpers/oracle.ts';
import { CLOCK_QUERY, CLOCK_RESPONSE, CLOCK_SOURCES, triplet } from '../judges/helpers/triplets.ts';

let dir: string;
let fake: FakeOpenAI;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ragwatch-score-'));
  fake = await startFakeOpenAI(oracleResponder());
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await fake.close();
});
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (err.push(String(chunk)), true));
  return { out, err };
}

function writeJsonl(name: string, lines: unknown[]): string {
  const file = join(dir, name);
  writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));
  return file;
}

describe('ragwatch score', () => {
  it('prints one valid ScoreRecord per triplet with the embedded judge and reports bad lines', async () => {
    const { sampling: _s, ...plain } = triplet(CLOCK_QUERY, CLOCK_SOURCES, 'The tower was completed in 1856 by Mr Smith.');
    const file = writeJsonl('in.jsonl', [triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE), plain, '{broken', { query: 'no id' }]);
    const { out, err } = capture();
    await scoreCommand.run([file, '--judge', 'embedded']);
    const records = out.join('').trim().split('\n').map((l) => scoreRecordSchema.parse(JSON.parse(l)));
    expect(records).toHaveLength(2);
    expect(records.every((r) => r.judge.kind === 'embedded')).toBe(true);
    expect(records[1]!.stratum).toBe('offline');
    expect(records[1]!.details.unsupportedTokens).toEqual(expect.arrayContaining(['1856', 'Smith']));
    expect(err.join('')).toMatch(/line 3: not valid JSON/);
    expect(err.join('')).toMatch(/line 4: not a triplet/);
    expect(process.exitCode).toBe(1);
  });

  it('uses the LLM judge when an endpoint is configured, and --min gates the run', async () => {
    const file = writeJsonl('llm.jsonl', [triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE.replaceAll('1896', '1856'))]);
    const config = join(dir, 'ragwatch.yaml');
    writeFileSync(config, `judge:\n  baseUrl: ${fake.baseURL}\n  apiKey: test\n  model: judge-model\n`);
    const { out, err } = capture();
    await scoreCommand.run([file, '-c', config, '--min', 'groundedness=0.8']);
    const record = scoreRecordSchema.parse(JSON.parse(out.join('').trim()));
    expect(record.judge).toEqual({ kind: 'llm', model: 'judge-model' });
    expect(record.usage.calls).toBe(3);
    expect(record.scores.groundedness).toBeLessThan(0.8);
    expect(err.join('')).toMatch(/gate failed: groundedness mean 0\.333 < 0\.8/);
    expect(process.exitCode).toBe(1);
  });

  it('adds the configured evaluators: checks with any judge, llm evaluators skipped by the embedded judge; --min gates an evaluator', async () => {
    const file = writeJsonl('evaluators.jsonl', [triplet(CLOCK_QUERY, CLOCK_SOURCES, `${CLOCK_RESPONSE} [1]`), triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE)]);
    const config = join(dir, 'evaluators.yaml');
    writeFileSync(config, JSON.stringify({ evaluators: [{ name: 'cites_source', description: 'Cites a source.', kind: 'check', check: { citesSource: true } }, { name: 'no_dosage', description: 'No dosage.', kind: 'llm', rubric: 'Fail on a dosage.' }] }));
    const { out, err } = capture();
    await scoreCommand.run([file, '-c', config, '--judge', 'embedded', '--min', 'cites_source=0.9']);
    const records = out.join('').trim().split('\n').map((l) => scoreRecordSchema.parse(JSON.parse(l)));
    expect(records.map((r) => r.scores.cites_source)).toEqual([1, 0]);
    expect(records.map((r) => r.skipped.no_dosage)).toEqual(['no_llm_judge', 'no_llm_judge']);
    expect(err.join('')).toMatch(/gate failed: cites_source mean 0\.500 < 0\.9/);
    expect(process.exitCode).toBe(1);
  });

  it('is registered in the CLI', () => {
    expect(COMMANDS.get('score')).toBe(scoreCommand);
  });

  it('rejects an unknown metric in --min', async () => {
    const file = writeJsonl('x.jsonl', []);
    await expect(scoreCommand.run([file, '--judge', 'embedded', '--min', 'nope=0.5'])).rejects.toThrow(/--min nope=0.5/);
  });
});
