/**
 * Names as people write them (issue 32): a suite named `acme-hr`, `hr.v2` or `Ops "night" suite` is
 * loaded, its queries carry the name, its series carry it as the label value (quotes escaped by the
 * exposition), the probes page escapes it in text and encodes it in the anchor, the PromQL shown
 * quotes it; an exam may be named the same way; control characters are refused with the key named.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { promqlString } from '../../src/config/display-name.ts';
import { SuiteError } from '../../src/errors.ts';
import { examSchema } from '../../src/exams/types.ts';
import { loadProbeSuite } from '../../src/probes/load-suite.ts';
import { ProbeInstruments } from '../../src/probes/metrics.ts';
import { summarize, type ProbeOutcome } from '../../src/probes/runner.ts';
import { probeRunOf } from '../../src/probes/run-view.ts';
import { escapeHtml } from '../../src/server/layout.ts';
import { renderProbesPage } from '../../src/server/probes-page.ts';
import { metricValue } from '../helpers/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-names-'));
writeFileSync(join(dir, 'people.csv'), 'name,team\nAda,Core\n');
const suiteFile = (suite: string) => {
  const file = join(dir, `${Buffer.from(suite).toString('hex')}.yaml`);
  writeFileSync(file, stringify({ suite, csv: '.', target: { url: 'http://127.0.0.1:1/ask', answerPath: 'answer' }, templates: [{ name: 'team.v2', sql: "SELECT team FROM people WHERE name = '[people.name]'", texts: ['Which team is [people.name] in?'] }] }));
  return file;
};

describe('suite and exam names', () => {
  for (const name of ['acme-hr', 'hr.v2', 'Ops "night" suite', 'équipe RH']) {
    it(`a suite named ${name} loads, and its series and page carry the name`, () => {
      const { suite } = loadProbeSuite(suiteFile(name));
      expect(suite.suite).toBe(name);
      const outcomes: ProbeOutcome[] = [{ query: { suite: name, template: 'team.v2', group: 'g', variant: 'text:0', query: 'Which team is Ada in?', fill: { 'people.name': 'Ada' }, truth: ['Core'], match: 'contains', tolerance: 0 }, outcome: 'wrong', traceId: 'f'.repeat(32), answer: 'Sales' }];
      const report = summarize(name, outcomes);
      const registry = new Registry();
      new ProbeInstruments(registry).record(report, new Map([['team.v2', { outcomes: { wrong: 1 }, failures: {} }]]), Date.now(), 10);
      return registry.metrics().then((text) => {
        // (metricValue reads plain label values; the escaped form is checked on the text below.)
        if (!name.includes('"')) expect(metricValue(text, 'ragwatch_probe_accuracy_ratio', { suite: name })).toBe(0);
        expect(text).toContain(`ragwatch_probe_accuracy_ratio{suite="${name.replace(/"/g, '\\"')}"} 0`);
        expect(text).toContain(`suite="${name.replace(/"/g, '\\"')}"`);
        const html = renderProbesPage([{ suite: name, every: '15m', last: probeRunOf(report, outcomes, new Map(), 0, 10) }]);
        expect(html).toContain(`id="suite-${encodeURIComponent(name)}"`);
        expect(html).toContain(`>Suite ${escapeHtml(name)} <span`);
        if (name.includes('"')) expect(html).not.toContain(name);
        expect(html).toContain(`ragwatch_probe_accuracy_ratio{suite=${promqlString(name).replace(/"/g, '&quot;')}}`);
      });
    });
  }

  it('PromQL literals escape quotes and backslashes', () => {
    expect(promqlString('Ops "night" \\ suite')).toBe('"Ops \\"night\\" \\\\ suite"');
  });

  it('refuses control characters and surrounding spaces, naming the key', () => {
    for (const [name, message] of [['hr\nv2', /key "suite": no control characters/], [' hr', /key "suite": no leading or trailing spaces/], ['', /key "suite": a name is needed/]] as const) {
      let err: unknown;
      try {
        loadProbeSuite(suiteFile(name));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(SuiteError);
      expect((err as SuiteError).message).toMatch(message);
    }
  });

  it('an exam may be named acme-hr or hr.v2 too', () => {
    for (const exam of ['acme-hr', 'hr.v2', 'Ops "night" exam']) expect(examSchema.safeParse({ exam, version: 1, items: [] }).error?.issues.filter((i) => i.path[0] === 'exam') ?? []).toEqual([]);
    expect(examSchema.safeParse({ exam: 'a\tb', version: 1, items: [] }).error?.issues.find((i) => i.path[0] === 'exam')?.message).toBe('no control characters (newlines, tabs)');
  });
});
