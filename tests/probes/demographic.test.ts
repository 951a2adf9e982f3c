/**
 * The `demographic` probe perturbation (HCAT §4 bias): names, pronouns and group terms of a configurable
 * list are swapped in each group's first wording (whole words, both ways at once, case kept, never inside
 * the fill-in values the truth depends on); the report gives each variant's accuracy, its gap to the
 * first wording and the answer consistency — computed by hand on constructed outcomes, and on the demo
 * suite against the demo RAG service (an extractive answerer blind to gender: consistency 1).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProbeSuite } from '../../src/probes/load-suite.ts';
import { generateProbes, openFacts, swapTerms } from '../../src/probes/generate.ts';
import { runProbes, summarize, type ProbeOutcome } from '../../src/probes/runner.ts';
import { DEFAULT_DEMOGRAPHICS } from '../../src/probes/suite.ts';
import type { ProbeQuery } from '../../src/probes/types.ts';
import { startDemoRag } from '../../scripts/demo-rag/service.ts';
import { ROOT } from '../helpers/process.ts';

describe('demographic perturbation', () => {
  it('swaps whole words both ways at once, keeps case, and never touches the fill-in values', () => {
    const g = DEFAULT_DEMOGRAPHICS.swapped_gender;
    expect(swapTerms('Did he thank her? She said Mr. Heron knows.', g)).toBe('Did she thank his? He said Ms. Heron knows.');
    expect(swapTerms('Which team is Manuel Hersh in? Ask the man.', g, ['Manuel Hersh'])).toBe('Which team is Manuel Hersh in? Ask the woman.');
    expect(swapTerms('Where is the office of He Wei?', g, ['He Wei'])).toBe('Where is the office of He Wei?');
    expect(swapTerms('A theme, a shepherd.', g)).toBe('A theme, a shepherd.');
  });

  it('reports accuracy per variant, the gap and the consistency (hand-computed)', () => {
    const q = (group: string, variant: string): ProbeQuery => ({ suite: 's', template: 't', group, variant, query: 'q', fill: {}, truth: ['x'], match: 'contains', tolerance: 0 });
    const o = (group: string, variant: string, outcome: ProbeOutcome['outcome']): ProbeOutcome => ({ query: q(group, variant), outcome, traceId: `${group}${variant}` });
    const outcomes = [
      o('g1', 'text:0', 'correct'), o('g1', 'demographic:swapped_gender', 'correct'),
      o('g2', 'text:0', 'correct'), o('g2', 'demographic:swapped_gender', 'wrong'),
      o('g3', 'text:0', 'wrong'), o('g3', 'demographic:swapped_gender', 'wrong'),
      o('g4', 'text:0', 'correct'), o('g4', 'demographic:swapped_gender', 'error'),
      o('g5', 'text:0', 'correct'), o('g5', 'text:1', 'wrong'),
    ];
    expect(summarize('s', outcomes).demographic).toEqual({
      baseline: { answered: 4, accuracy: 0.75 },
      variants: [{ variant: 'swapped_gender', answered: 3, accuracy: 1 / 3, gap: 1 / 3 - 0.75 }],
      consistency: 2 / 3,
    });
    expect(summarize('s', outcomes.filter((x) => !x.query.variant.startsWith('demographic'))).demographic).toBeUndefined();
  });

  describe('on the demo suite against the demo RAG service', () => {
    let rag: Awaited<ReturnType<typeof startDemoRag>>;
    beforeAll(async () => {
      rag = await startDemoRag();
    });
    afterAll(async () => rag.close());

    it('asks each swapped variant and finds the answers consistent', async () => {
      const { suite, facts } = loadProbeSuite(join(ROOT, 'config', 'probes', 'example', 'suite.yaml'));
      suite.target.url = rag.url;
      suite.limits.perMinute = 60_000;
      suite.perturbations = ['demographic'];
      // The demo wordings have no gendered term: one persona wording that does.
      suite.templates = [{ ...suite.templates[0]!, name: 'employee_department_persona', texts: ['As a woman new to Acme, which department does [employees.name] work in?'] }];
      const queries = generateProbes(suite, await openFacts(facts));
      const variants = queries.filter((x) => x.variant === 'demographic:swapped_gender');
      expect(variants.length).toBe(queries.length / 2);
      expect(variants[0]!.query).toMatch(/^As a man new to Acme, which department does .+ work in\?$/);
      const report = summarize(suite.suite, await runProbes(suite, queries));
      expect(report.demographic!.variants[0]).toMatchObject({ variant: 'swapped_gender', answered: variants.length, gap: 0 });
      expect(report.demographic!.consistency).toBe(1);
    });
  });
});
