/**
 * `probe run` against a scripted local RAG service: outcomes, gap / robust / non-robust groups, R and
 * module attribution computed by hand; the target's failure modes (timeout, 500, no answer at the
 * path) are `error`, never `wrong`; the limits hold (concurrency, perMinute); the CLI gate exits 1.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadProbeSuite } from '../../src/probes/load-suite.ts';
import { generateProbes, openFacts } from '../../src/probes/generate.ts';
import { runProbes, summarize } from '../../src/probes/runner.ts';
import { BIN, ROOT } from '../helpers/process.ts';

const DOCS: Record<string, string> = { alice: 'Alice Martin works in Finance.', brian: "Brian O'Hara works in Legal.", chen: 'Chen Wei works in Engineering.' };
/** The service: Alice always right; Brian right only for the first wording, the second retrieves the wrong doc (retrieval);
 *  Chen: retrieves the right doc but answers wrongly (generator) for every wording → a gap; Dana: "I don't know" (gap, no sources). */
function answer(question: string): { status: number; body?: unknown; hang?: boolean } {
  if (question.includes('Erin')) return { status: 500 };
  if (question.includes('Femi')) return { status: 200, body: { text: 'Finance' } };
  if (question.includes('Gita')) return { status: 200, hang: true };
  if (question.includes('Alice')) return { status: 200, body: { answer: 'Alice Martin is in Finance.', sources: [{ id: 'alice', content: DOCS.alice }] } };
  if (question.includes('Brian')) {
    const first = question.startsWith('Which department');
    return { status: 200, body: first ? { answer: 'Legal.', sources: [{ id: 'brian', content: DOCS.brian }] } : { answer: 'Finance.', sources: [{ id: 'alice', content: DOCS.alice }] } };
  }
  if (question.includes('Chen')) return { status: 200, body: { answer: 'Sales.', sources: [{ id: 'chen', content: DOCS.chen }] } };
  return { status: 200, body: { answer: "Sorry, I don't know.", sources: [] } };
}

let server: Server;
let url = '';
let inFlight = 0;
let maxInFlight = 0;
const starts: number[] = [];
const dir = mkdtempSync(join(tmpdir(), 'ragwatch-probe-run-'));

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      starts.push(performance.now());
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const { question } = JSON.parse(body) as { question: string };
      const a = answer(question);
      setTimeout(() => {
        inFlight--;
        if (a.hang) return; // never answers: the probe's timeout must end it
        res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body ?? { error: 'boom' }));
      }, 20);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/ask`;
  mkdirSync(join(dir, 'facts'));
  writeFileSync(join(dir, 'facts', 'employees.csv'), "name,department\nAlice Martin,Finance\nBrian O'Hara,Legal\nChen Wei,Engineering\nDana Kim,Engineering\nErin Cole,Sales\nFemi Ade,Support\nGita Rao,Finance\n");
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

function suiteFile(limits: Record<string, number> = {}): string {
  const file = join(dir, 'suite.yaml');
  writeFileSync(file, stringify({
    suite: 'acme', csv: 'facts', target: { url, answerPath: 'answer', sourcesPath: 'sources', timeoutMs: 400 },
    templates: [{ name: 'dept', sql: "SELECT department FROM employees WHERE name = '[employees.name]'", texts: ['Which department does [employees.name] work in?', 'What team is [employees.name] in?'] }],
    limits: { concurrency: 3, perMinute: 6000, ...limits },
  }));
  return file;
}

describe('probe run', () => {
  it('grades, groups and attributes as computed by hand; service failures are errors', async () => {
    const { suite, facts } = loadProbeSuite(suiteFile());
    const queries = generateProbes(suite, await openFacts(facts));
    const outcomes = await runProbes(suite, queries);
    const of = (name: string) => outcomes.filter((o) => o.query.fill['employees.name']!.startsWith(name)).map((o) => [o.outcome, o.module ?? o.reason ?? '']);
    expect(of('Alice')).toEqual([['correct', ''], ['correct', '']]);
    expect(of('Brian')).toEqual([['correct', ''], ['wrong', 'retrieval']]);
    expect(of('Chen')).toEqual([['wrong', 'generator'], ['wrong', 'generator']]);
    expect(of('Dana')).toEqual([['abstained', 'retrieval'], ['abstained', 'retrieval']]);
    expect(of('Erin')).toEqual([['error', 'http_status'], ['error', 'http_status']]);
    expect(of('Femi')).toEqual([['error', 'no_answer'], ['error', 'no_answer']]);
    expect(of('Gita')).toEqual([['error', 'timeout'], ['error', 'timeout']]);
    const r = summarize('acme', outcomes);
    // Answered: 8 (Alice 2, Brian 2, Chen 2, Dana 2), correct 3; gap groups Chen and Dana hold 4 answered.
    expect(r.outcomes).toEqual({ correct: 3, wrong: 3, abstained: 2, error: 6 });
    expect(r.accuracy).toBeCloseTo(3 / 8, 12);
    expect(r.robustness).toBeCloseTo(3 / (8 - 4), 12);
    expect(r.groups).toEqual({ gap: 2, robust: 1, non_robust: 1 });
    expect(r.failures).toEqual({ retrieval: 3, generator: 2, unknown: 0 });
    expect(r.errors).toEqual({ http_status: 2, no_answer: 2, timeout: 2 });
    expect(r.templates).toEqual([{ name: 'dept', groups: { gap: 2, robust: 1, non_robust: 1 }, correct: 3, total: 14 }]);
  });

  it('never has more than limits.concurrency requests in flight nor starts more than limits.perMinute a minute', async () => {
    maxInFlight = 0;
    starts.length = 0;
    const { suite, facts } = loadProbeSuite(suiteFile({ concurrency: 2, perMinute: 600 }));
    const queries = generateProbes(suite, await openFacts(facts)).filter((q) => !q.fill['employees.name']!.startsWith('Gita'));
    await runProbes(suite, queries);
    expect(maxInFlight).toBeLessThanOrEqual(2);
    // 600 a minute = one start per 100 ms at most. Arrival times carry the machine's scheduling jitter
    // (a start delayed on a loaded machine shortens the next gap: 80 ms seen in CI), the limiter's spacing
    // does not add up wrong: no two starts closer than half the interval, and start i at least i
    // intervals after the first, less one jitter allowance. A limiter letting two through at once fails both.
    expect(starts.length).toBeGreaterThan(3);
    for (let i = 1; i < starts.length; i++) {
      expect(starts[i]! - starts[i - 1]!).toBeGreaterThan(50);
      expect(starts[i]! - starts[0]!).toBeGreaterThan(i * 100 - 40);
    }
  });

  it('the CLI gate: --json report with the judge audit, exit 1 below --min-robustness', async () => {
    // Asynchronously: the scripted service runs in this process and must keep answering.
    const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [BIN, 'probe', 'run', '--json', '--min-robustness', '0.9', suiteFile()], { cwd: ROOT, env: { ...process.env, NODE_NO_WARNINGS: '1' } }, (_err, stdout, stderr) => resolve({ status: child.exitCode, stdout, stderr }));
    });
    expect(r.status, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as { robustness: number; judges: Array<Record<string, unknown>> };
    expect(report.robustness).toBeCloseTo(0.75, 12);
    expect(r.stderr).toMatch(/below the minimum/);
    // The judge audit (embedded judge by default) over the 6 answers with sources: grounding_lexical has a
    // score for Alice ×2 and Brian ×2 (Chen's "Sales." has nothing to check) and flags none — it misses
    // Brian's wrong "Finance." (a name that occurs in the retrieved passage): recall 0, precision undefined.
    expect(report.judges.find((j) => j.metric === 'grounding_lexical')).toEqual({ metric: 'grounding_lexical', judge: 'embedded', n: 4, flagged: 0, wrong: 1, precision: null, recall: 0 });
  }, 60_000);
});
