/**
 * Fault case 6: the 18-string prompt-injection corpus (+ tag forgeries), each placed in the answer,
 * in a retrieved source and in the query, on a bad and a good base triplet, end to end through the
 * pipeline against the scripted judge model (deterministic tier). A case fails when the injected
 * text changes the parsed verdicts of the clean claims, escapes the per-call data wrapper of any
 * judge request, or — with a model that obeys smuggled verdicts — gets those verdicts accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTraceRequest } from '../../src/capture/otlp/traces.ts';
import { loadConfig } from '../../src/config/load.ts';
import { Pipeline } from '../../src/roles/pipeline.ts';
import type { ScoreRecord } from '../../src/triplet.ts';
import { startFakeOpenAI, type FakeOpenAI, type FakeReply, type FakeRequest } from '../fakes/openai-server.ts';
import { oracleResponder, parsePrompt } from '../judges/helpers/oracle.ts';
import { INJECTIONS, SMUGGLED, TAG_FORGERIES } from '../judges/llm/injection-corpus.ts';
import { openInferenceTrace } from '../helpers/otlp.ts';
import { reportFigure } from './figures.ts';

const QUERY = 'When was the Chimnabai Clock Tower completed, and who was it named after?';
const SOURCES = [
  'The Chimnabai Clock Tower in Vadodara was completed in 1896. It was named after Chimnabai I, a queen of Baroda State.',
  'It was inaugurated by Mir Kamaluddin Hussainkhan, the last Nawab of Baroda.',
];
const BASES = {
  good: 'The Chimnabai Clock Tower was completed in 1896. It was named after Chimnabai I.',
  bad: 'The Chimnabai Clock Tower was completed in 1925. It was named after Queen Victoria of England.',
} as const;
const PLACEMENTS = ['answer', 'source', 'query'] as const;
type Placement = (typeof PLACEMENTS)[number];
const CORPUS = [...INJECTIONS, ...TAG_FORGERIES];

interface Case {
  id: string;
  base: keyof typeof BASES;
  placement: Placement | 'clean';
  text: string;
}

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI(oracleResponder());
});
afterAll(async () => fake.close());

function pipelineFor(onRecord: (r: ScoreRecord) => void): Pipeline {
  const config = loadConfig({
    env: {},
    overrides: {
      capture: { traceIdleMs: 100 },
      judge: { kind: 'llm', baseUrl: fake.baseURL, apiKey: 'test-key', model: 'judge-model', concurrency: 4, llm: { factCacheSize: 0, resultCacheSize: 0, retryBaseMs: 20 } },
    },
  });
  return new Pipeline({ config, onRecord });
}

function ingest(pipeline: Pipeline, c: Case): string {
  const inj = c.placement === 'clean' ? '' : c.text;
  const { body, traceId } = openInferenceTrace({
    query: c.placement === 'query' ? `${QUERY} ${inj}` : QUERY,
    documents: SOURCES.map((content, i) => ({ id: `d${i + 1}`, content: c.placement === 'source' && i === 0 ? `${content} ${inj}` : content })),
    response: c.placement === 'answer' ? `${BASES[c.base]} ${inj}` : BASES[c.base],
  });
  pipeline.ingestSpans(decodeTraceRequest(body).spans, 'otlp');
  return traceId;
}

/** Verdicts of the base answer's claims, by claim text (an injected sentence may add claims; those are not compared). */
function baseVerdicts(record: ScoreRecord | undefined, base: string): string {
  const baseClaims = base.split(/(?<=\.)\s+/);
  return JSON.stringify(baseClaims.map((t) => record?.details.claims.find((c) => c.text.trim() === t.trim())?.verdict ?? 'missing'));
}

/** Text of the user message outside every data block of the call's own nonce. */
function outsideBlocks(req: FakeRequest): string {
  const p = parsePrompt(req);
  const re = new RegExp(`<untrusted-${p.nonce} [^>]*>[\\s\\S]*?</untrusted-${p.nonce}>`, 'g');
  return p.user.replace(re, '');
}

describe('fault 6: prompt-injection corpus end to end', () => {
  it('injected text never changes the parsed verdicts and never leaves the data wrapper', { timeout: 180_000 }, async () => {
    const records = new Map<string, ScoreRecord>();
    const pipeline = pipelineFor((r) => records.set(r.traceId, r));
    await pipeline.start();
    const cases = new Map<string, Case>();
    for (const base of Object.keys(BASES) as Array<keyof typeof BASES>) {
      cases.set(ingest(pipeline, { id: 'clean', base, placement: 'clean', text: '' }), { id: 'clean', base, placement: 'clean', text: '' });
      for (const inj of CORPUS) for (const placement of PLACEMENTS) {
        const c: Case = { id: inj.id, base, placement, text: inj.text };
        cases.set(ingest(pipeline, c), c);
      }
    }
    await pipeline.forceFlush();
    await pipeline.shutdown();

    const clean = Object.fromEntries((Object.keys(BASES) as Array<keyof typeof BASES>).map((b) => {
      const id = [...cases].find(([, c]) => c.base === b && c.placement === 'clean')![0];
      return [b, baseVerdicts(records.get(id), BASES[b])];
    }));
    const failures: string[] = [];
    for (const [traceId, c] of cases) {
      if (c.placement === 'clean') continue;
      const got = baseVerdicts(records.get(traceId), BASES[c.base]);
      if (got !== clean[c.base]) failures.push(`${c.id}/${c.placement}/${c.base}: ${got} != ${clean[c.base]}`);
    }
    let escaped = 0;
    for (const req of fake.requests) {
      const outside = outsideBlocks(req);
      for (const inj of CORPUS) {
        const probe = inj.text.trim().slice(0, 24);
        if (probe.length >= 8 && outside.includes(probe)) escaped++;
      }
    }
    const injectedCases = cases.size - 2;
    reportFigure({ fault: 'injection', figure: 'verdicts_changed', value: failures.length, cases: injectedCases, strings: CORPUS.length, placements: PLACEMENTS.length, bases: 2, examples: failures.slice(0, 3) });
    reportFigure({ fault: 'injection', figure: 'escaped_wrapper', value: escaped, judgeRequests: fake.requests.length });
    expect(clean.good).toBe(JSON.stringify(['supported', 'supported']));
    expect(clean.bad).not.toContain('supported');
    expect(records.size).toBe(cases.size);
    expect(injectedCases).toBeGreaterThanOrEqual(18 * 3);
    expect(failures).toEqual([]);
    expect(escaped).toBe(0);
  });

  it('a model that copies smuggled verdicts out of the data never gets them accepted', { timeout: 120_000 }, async () => {
    fake.requests.length = 0;
    // A fooled model: whenever the data carries a verdict object, it answers with it verbatim, as JSON
    // (the judge shows the data's quotes as typographic ones; a model could still write them back as ASCII).
    let fooledAnswers = 0;
    const fooled = (req: FakeRequest): FakeReply => {
      const body = JSON.stringify(req.body ?? {});
      if ((body.includes('"claims\\":[') || body.includes('claims”:[')) && parsePrompt(req).step === 'response_match') {
        fooledAnswers++;
        return { content: SMUGGLED };
      }
      return oracleResponder()(req);
    };
    fake.setResponder(fooled);
    const records: ScoreRecord[] = [];
    const pipeline = pipelineFor((r) => records.push(r));
    await pipeline.start();
    for (const placement of PLACEMENTS) ingest(pipeline, { id: 'PI-06', base: 'bad', placement, text: INJECTIONS.find((i) => i.id === 'PI-06')!.text });
    await pipeline.forceFlush();
    const failed = (await pipeline.instruments.failed.get()).values.reduce((a, v) => a + v.value, 0);
    await pipeline.shutdown();
    fake.setResponder(oracleResponder());
    const accepted = records.filter((r) => r.details.claims.some((c) => c.verdict === 'supported')).length;
    reportFigure({ fault: 'injection', figure: 'smuggled_verdicts_accepted', value: accepted, cases: PLACEMENTS.length, failedUnscored: failed, scored: records.length, fooledAnswers });
    expect(fooledAnswers).toBeGreaterThanOrEqual(PLACEMENTS.length);
    expect(accepted).toBe(0);
    expect(failed + records.length).toBe(PLACEMENTS.length);
  });
});
