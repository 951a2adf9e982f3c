/**
 * The example suite against the demo RAG service (scripts/demo-rag/service.ts): all three group kinds
 * appear, for the reasons built into the service — facts missing from its documents are gaps
 * attributed to retrieval, a wording its answerer misreads fails with the right page retrieved
 * (generator) — and R and accuracy equal their definitions recomputed from the outcomes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documents, startDemoRag } from '../../scripts/demo-rag/service.ts';
import { loadProbeSuite } from '../../src/probes/load-suite.ts';
import { generateProbes, openFacts } from '../../src/probes/generate.ts';
import { runProbes, summarize, type ProbeOutcome } from '../../src/probes/runner.ts';

let close: () => Promise<void>;
let outcomes: ProbeOutcome[];

beforeAll(async () => {
  const demo = await startDemoRag();
  close = demo.close;
  const { suite, facts } = loadProbeSuite('config/probes/example/suite.yaml');
  suite.target.url = demo.url;
  suite.limits.perMinute = 60_000;
  suite.limits.concurrency = 8;
  outcomes = await runProbes(suite, generateProbes(suite, await openFacts(facts)));
});
afterAll(() => close());

const group = (template: string, value: string) => outcomes.filter((o) => o.query.template === template && Object.values(o.query.fill)[0] === value);

describe('example suite × demo RAG service', () => {
  it('a fact missing from the documents is a gap group, attributed to retrieval', () => {
    expect(documents().some((d) => d.content.includes('Contractly was launched'))).toBe(false);
    for (const [template, value] of [['product_launch', 'Contractly'], ['employee_title', 'Hana Sato']] as const) {
      const g = group(template, value);
      expect(g.length).toBeGreaterThan(0);
      expect(g.every((o) => o.outcome === 'wrong' || o.outcome === 'abstained')).toBe(true);
      expect(g.every((o) => o.module === 'retrieval')).toBe(true);
    }
  });

  it('a wording the answerer misreads ("come out") fails with the right page retrieved: generator; the other wordings are right', () => {
    const g = group('product_launch', 'Ledgerly');
    expect(g.find((o) => o.query.variant === 'text:0')?.outcome).toBe('correct');
    const comeOut = g.find((o) => o.query.variant === 'text:1')!;
    expect(comeOut.query.query).toBe('In which year did Ledgerly come out?');
    expect(comeOut).toMatchObject({ outcome: 'wrong', module: 'generator' });
    expect(comeOut.sources?.some((s) => s.content.includes('Ledgerly was launched in 2015'))).toBe(true);
  });

  it('the report shows all three group kinds, and R and accuracy match their definitions', () => {
    const r = summarize('acme_example', outcomes);
    expect(r.groups.gap).toBeGreaterThan(0);
    expect(r.groups.robust).toBeGreaterThan(0);
    expect(r.groups.non_robust).toBeGreaterThan(0);
    expect(r.templates.find((t) => t.name === 'product_price')?.groups).toEqual({ gap: 0, robust: 6, non_robust: 0 });
    const answered = outcomes.filter((o) => o.outcome !== 'error');
    const correct = answered.filter((o) => o.outcome === 'correct').length;
    const gapGroups = new Set([...new Set(answered.map((o) => o.query.group))].filter((g) => answered.filter((o) => o.query.group === g).every((o) => o.outcome !== 'correct')));
    const inGaps = answered.filter((o) => gapGroups.has(o.query.group)).length;
    expect(r.groups.gap).toBe(gapGroups.size);
    expect(r.accuracy).toBeCloseTo(correct / answered.length, 12);
    expect(r.robustness).toBeCloseTo(correct / (answered.length - inGaps), 12);
    expect(r.failures.retrieval).toBeGreaterThan(0);
    expect(r.failures.generator).toBeGreaterThan(0);
    expect(r.outcomes.error).toBe(0);
  });
});
