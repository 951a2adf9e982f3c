/**
 * Configured evaluators through the scorer, with the real judges: the checks give the same known answers
 * on crafted triplets whichever judge scores (the embedded judge, the LLM judge through the scripted
 * OpenAI-compatible server, and the embedded companion next to it); the llm evaluators are scored by the
 * LLM judge in one extra call and skipped — counted, never scored — by the embedded judge.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { createEvaluators } from '../../src/evaluators/create.ts';
import { EmbeddedJudge } from '../../src/judges/embedded/embedded-judge.ts';
import { createJudge } from '../../src/judges/create.ts';
import type { Judge } from '../../src/judges/types.ts';
import { Scorer } from '../../src/scorer/scorer.ts';
import { createInstruments, type Instruments } from '../../src/telemetry/instruments.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { useFakeOpenAI } from '../fakes/openai-server.ts';
import { oracleResponder } from '../judges/helpers/oracle.ts';

const fake = useFakeOpenAI((f) => f.setResponder(oracleResponder()));

const EVALUATORS = [
  { name: 'cites_source', description: 'Cites a retrieved source.', kind: 'check', check: { citesSource: true } },
  { name: 'json_answer', description: 'A JSON answer.', kind: 'check', check: { jsonSchema: { type: 'object', required: ['answer'], properties: { answer: { type: 'string' } } } } },
  { name: 'no_competitor', description: 'Names no competitor.', kind: 'check', check: { mustNotMatch: '\\bglobex\\b', flags: 'i' } },
  { name: 'no_dosage_advice', description: 'No dosage.', kind: 'llm', rubric: 'Fail if the RESPONSE tells the user how much of a medicine to take.', inputs: ['response'] },
];

const base = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', timestamp: '2026-11-22T10:00:00.000Z', service: 'shop', convention: 'custom' as const, latency: { durationMs: 900 }, sampling: { weight: 1, stratum: 'all', rule: 'rate' } };
const SOURCES = [{ id: 'policy-7', content: 'Returns are accepted within 30 days of delivery.' }];
/** Crafted triplets and the checks' known answers on them. */
const CASES: Array<{ triplet: SampledTriplet; expected: Record<string, number> }> = [
  { triplet: { ...base, id: 'cited-json', query: 'How long do I have to return it?', sources: SOURCES, response: '{"answer": "30 days from delivery [1]."}' }, expected: { cites_source: 1, json_answer: 1, no_competitor: 1 } },
  { triplet: { ...base, id: 'uncited-prose', query: 'How long do I have to return it?', sources: SOURCES, response: 'You have 30 days, longer than at Globex.' }, expected: { cites_source: 0, json_answer: 0, no_competitor: 0 } },
  { triplet: { ...base, id: 'by-id-bad-json', query: 'How long do I have to return it?', sources: SOURCES, response: '{"answer": 30} (policy-7)' }, expected: { cites_source: 1, json_answer: 0, no_competitor: 1 } },
];

function setup(judge: Judge, companion?: Judge) {
  const config = loadConfig({ env: {}, overrides: { evaluators: EVALUATORS } });
  const instruments = createInstruments({ processMetrics: false });
  const records: ScoreRecord[] = [];
  const scorer = new Scorer({ judge, ...(companion ? { companion } : {}), evaluators: createEvaluators(config)!, instruments, onRecord: (r) => records.push(r) });
  return { config, instruments, records, scorer };
}

async function counted(instruments: Instruments, metric: string, reason: string): Promise<number> {
  return (await instruments.skipped.get()).values.find((v) => v.labels.metric === metric && v.labels.reason === reason)?.value ?? 0;
}

async function histogramCount(instruments: Instruments, metric: string, judge: string): Promise<number> {
  const text = await instruments.registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`ragwatch_score_ratio_count{metric="${metric}",judge="${judge}"`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('evaluators through the scorer', () => {
  it('with the embedded judge: the checks’ known answers; the llm evaluator skipped (no_llm_judge) and counted, never 0', async () => {
    const { instruments, records, scorer } = setup(new EmbeddedJudge());
    for (const c of CASES) {
      instruments.inFlight.inc();
      expect((await scorer.handle(c.triplet)).status).toBe('scored');
    }
    expect(records).toHaveLength(3);
    for (const [i, c] of CASES.entries()) {
      expect(records[i]!.judge.kind).toBe('embedded');
      expect(records[i]!.scores, c.triplet.id).toMatchObject(c.expected);
      expect(records[i]!.scores.no_dosage_advice).toBeUndefined();
      expect(records[i]!.skipped.no_dosage_advice).toBe('no_llm_judge');
      expect(records[i]!.scores.grounding_lexical).toBeDefined();
    }
    expect(records[1]!.details.evaluators?.cites_source?.failed).toEqual(['citesSource: no retrieved source is cited']);
    expect(await counted(instruments, 'no_dosage_advice', 'no_llm_judge')).toBe(3);
    expect(await histogramCount(instruments, 'cites_source', 'embedded')).toBe(3);
    expect(await histogramCount(instruments, 'no_dosage_advice', 'embedded')).toBe(0);
  }, 60_000);

  it('with the LLM judge (and the embedded companion): the same check answers in both records; the llm evaluator in one extra call', async () => {
    const config = loadConfig({ env: {}, overrides: { judge: { kind: 'llm', baseUrl: fake.baseURL, apiKey: 'k', model: 'judge-model' }, evaluators: EVALUATORS } });
    const judge = createJudge(config);
    const { instruments, records, scorer } = setup(judge, new EmbeddedJudge());
    await judge.init();
    for (const c of CASES) {
      instruments.inFlight.inc();
      expect((await scorer.handle(c.triplet)).status).toBe('scored');
    }
    expect(records.map((r) => r.judge.kind)).toEqual(['llm', 'embedded', 'llm', 'embedded', 'llm', 'embedded']);
    for (const [i, c] of CASES.entries()) {
      const [llm, embedded] = [records[2 * i]!, records[2 * i + 1]!];
      expect(llm.scores, c.triplet.id).toMatchObject(c.expected);
      expect(embedded.scores, c.triplet.id).toMatchObject(c.expected);
      expect(llm.scores.no_dosage_advice).toBe(1);
      expect(llm.details.evaluators?.no_dosage_advice).toEqual({ label: 'pass', reason: 'The response meets the rubric.' });
      expect(llm.usage.calls).toBe(4);
      // The companion's record leaves the llm evaluator to the LLM record: no score, no second skip.
      expect(embedded.scores.no_dosage_advice).toBeUndefined();
      expect(embedded.skipped.no_dosage_advice).toBeUndefined();
    }
    expect(fake.requests).toHaveLength(12);
    expect(await histogramCount(instruments, 'cites_source', 'llm')).toBe(3);
    expect(await histogramCount(instruments, 'cites_source', 'embedded')).toBe(3);
    expect(await histogramCount(instruments, 'no_dosage_advice', 'llm')).toBe(3);
    await judge.shutdown();
  }, 60_000);
});
