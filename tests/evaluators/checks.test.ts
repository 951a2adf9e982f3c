import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { createEvaluators } from '../../src/evaluators/create.ts';
import type { EvaluatorSet } from '../../src/evaluators/types.ts';

function evaluatorsOf(list: unknown[]): EvaluatorSet {
  const set = createEvaluators(loadConfig({ env: {}, overrides: { evaluators: list } }));
  if (!set) throw new Error('no evaluators');
  return set;
}

const check = (name: string, rule: unknown) => ({ name, description: `${name} holds`, kind: 'check', check: rule });
const t = (response: string, sources: Array<{ id?: string; content: string }> = [{ content: 'Returns are accepted within 30 days.' }]) => ({ response, sources });

describe('check evaluators give known answers on crafted triplets', () => {
  it('citesSource (default): a bracketed position or a source id; not a position beyond the sources', () => {
    const set = evaluatorsOf([check('cites_source', { citesSource: true })]);
    const sources = [{ id: 'policy-7', content: 'Returns within 30 days.' }, { id: 'faq-2', content: 'Refunds take 5 days.' }];
    expect(set.check(t('You can return it within 30 days [1].', sources)).scores).toEqual({ cites_source: 1 });
    expect(set.check(t('See policy-7: 30 days.', sources)).scores).toEqual({ cites_source: 1 });
    expect(set.check(t('You can return it within 30 days [3].', sources)).scores).toEqual({ cites_source: 0 });
    expect(set.check(t('See policy-77 for details.', sources)).scores).toEqual({ cites_source: 0 });
    const uncited = set.check(t('You can return it within 30 days.', sources));
    expect(uncited.scores).toEqual({ cites_source: 0 });
    expect(uncited.explanations.cites_source?.failed).toEqual(['citesSource: no retrieved source is cited']);
  });

  it('citesSource without retrieved sources is skipped (no_sources), never 0 or 1', () => {
    const set = evaluatorsOf([check('cites_source', { citesSource: true })]);
    const r = set.check(t('Within 30 days [1].', []));
    expect(r.scores).toEqual({});
    expect(r.skipped).toEqual({ cites_source: 'no_sources' });
  });

  it('citesSource with a pattern: its group names a position or an id', () => {
    const set = evaluatorsOf([check('cites_doc', { citesSource: { pattern: '\\(source: ([\\w-]+)\\)' } })]);
    const sources = [{ id: 'kb-12', content: 'a' }, { id: 'kb-13', content: 'b' }];
    expect(set.check(t('Yes (source: kb-13).', sources)).scores.cites_doc).toBe(1);
    expect(set.check(t('Yes (source: 2).', sources)).scores.cites_doc).toBe(1);
    expect(set.check(t('Yes (source: kb-99).', sources)).scores.cites_doc).toBe(0);
    expect(set.check(t('Yes [1].', sources)).scores.cites_doc).toBe(0);
  });

  it('mustMatch / mustNotMatch, with flags', () => {
    const set = evaluatorsOf([check('no_competitor', { mustNotMatch: '\\b(acme|globex)\\b', flags: 'i' }), check('signed', { mustMatch: '— the support team$' })]);
    expect(set.check(t('Try Globex instead.')).scores).toEqual({ no_competitor: 0, signed: 0 });
    expect(set.check(t('We can help. — the support team')).scores).toEqual({ no_competitor: 1, signed: 1 });
    expect(set.check(t('Try Globex instead.')).explanations.no_competitor?.failed).toEqual(['mustNotMatch /\\b(acme|globex)\\b/i']);
  });

  it('maxChars counts characters (code points)', () => {
    const set = evaluatorsOf([check('short', { maxChars: 5 })]);
    expect(set.check(t('12345')).scores.short).toBe(1);
    expect(set.check(t('123456')).scores.short).toBe(0);
    expect(set.check(t('😀😀😀😀😀')).scores.short).toBe(1);
  });

  it('jsonSchema: valid JSON (true), valid against a schema, or the reason it is not', () => {
    const schema = { type: 'object', required: ['answer', 'sources'], properties: { answer: { type: 'string' }, sources: { type: 'array', items: { type: 'string' } } }, additionalProperties: false };
    const set = evaluatorsOf([check('is_json', { jsonSchema: true }), check('answer_json', { jsonSchema: schema })]);
    expect(set.check(t(' {"answer": "30 days", "sources": ["policy-7"]} ')).scores).toEqual({ is_json: 1, answer_json: 1 });
    const missing = set.check(t('{"answer": "30 days"}'));
    expect(missing.scores).toEqual({ is_json: 1, answer_json: 0 });
    expect(missing.explanations.answer_json?.failed).toEqual(["jsonSchema: (root) must have required property 'sources'"]);
    const prose = set.check(t('The answer is 30 days.'));
    expect(prose.scores).toEqual({ is_json: 0, answer_json: 0 });
    expect(prose.explanations.is_json?.failed).toEqual(['jsonSchema (valid JSON): not JSON']);
  });

  it('jsonSchema of draft 2020-12', () => {
    const set = evaluatorsOf([check('tuple', { jsonSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false } })]);
    expect(set.check(t('["a", 1]')).scores.tuple).toBe(1);
    expect(set.check(t('["a", 1, 2]')).scores.tuple).toBe(0);
  });

  it('all / any: skipped rules are left out; all skipped is skipped; failures are named', () => {
    const set = evaluatorsOf([
      check('cited_and_short', { all: [{ citesSource: true }, { maxChars: 40 }] }),
      check('cited_or_json', { any: [{ citesSource: true }, { jsonSchema: true }] }),
      check('nested', { all: [{ any: [{ mustMatch: 'days' }, { mustMatch: 'weeks' }] }, { mustNotMatch: 'guarantee' }] }),
    ]);
    expect(set.check(t('Within 30 days [1].')).scores).toEqual({ cited_and_short: 1, cited_or_json: 1, nested: 1 });
    const long = set.check(t('Within 30 days, as the returns policy of our shop says [1].'));
    expect(long.scores.cited_and_short).toBe(0);
    expect(long.explanations.cited_and_short?.failed).toEqual(['maxChars 40 (longer)']);
    // No sources: citesSource is left out, the rest decides.
    expect(set.check(t('Within 30 days.', [])).scores).toEqual({ cited_and_short: 1, cited_or_json: 0, nested: 1 });
    expect(set.check(t('We guarantee 2 weeks.')).scores.nested).toBe(0);
    const skipped = evaluatorsOf([check('only_cites', { any: [{ citesSource: true }] })]).check(t('x', []));
    expect(skipped).toEqual({ scores: {}, skipped: { only_cites: 'no_sources' }, explanations: {} });
  });
});

describe('llm evaluators in the scorer’s set', () => {
  const set = evaluatorsOf([check('cites_source', { citesSource: true }), { name: 'no_dosage', description: 'd', kind: 'llm', rubric: 'r' }]);

  it('are left to the judge; what a judge did not score is skipped, never scored', () => {
    expect(set.checkNames).toEqual(['cites_source']);
    expect(set.llmNames).toEqual(['no_dosage']);
    const checks = set.check(t('x [1]'));
    expect(set.forJudge(checks, 'embedded', { scores: {}, skipped: {} }).skipped).toEqual({ no_dosage: 'no_llm_judge' });
    expect(set.forJudge(checks, 'llm', { scores: {}, skipped: {} }).skipped).toEqual({ no_dosage: 'not_judged' });
    expect(set.forJudge(checks, 'llm', { scores: { no_dosage: 0 }, skipped: {} })).toBe(checks);
    expect(set.forJudge(checks, 'llm', { scores: {}, skipped: { no_dosage: 'malformed_output' } })).toBe(checks);
  });
});
