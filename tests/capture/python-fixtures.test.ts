/**
 * The spans real Python instrumentations sent (recorded from the live runs of
 * tests/integration/python-*.test.ts into tests/fixtures/otlp/python/<combination>/), read by the
 * capture code in the unit layer: every answered turn the service reported gives one triplet with its
 * question, retrieved documents and answer, nothing else gives one, and what is captured equals the
 * capabilities the live runs observed (capture.json, the source of the table in docs/capture.md).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTriplets } from '../../src/capture/build-triplets.ts';
import { createPromptSourceExtractor } from '../../src/capture/mappers/custom.ts';
import { createMappers } from '../../src/capture/mappers/index.ts';
import { decodeLogs, decodeTraces } from '../../src/capture/otlp/decode.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { Triplet } from '../../src/triplet.ts';
import { checkCapture, type Capabilities, type TurnReport } from './helpers/python-capture.ts';
import { COMBINATIONS, PROMPT_CONTEXT_PATTERN } from './helpers/python-combinations.ts';

const FIXTURES = join(import.meta.dirname, '../fixtures/otlp/python');
/** The fake LLM's first-chunk delay in the recorded runs (tests/integration/python-harness.ts). */
const FIRST_CHUNK_DELAY_MS = 150;
const capture = loadConfig({ env: {}, overrides: { capture: { custom: { promptContextPattern: PROMPT_CONTEXT_PATTERN } } } }).capture;

const read = <T>(dir: string, file: string): T | undefined => (existsSync(join(dir, file)) ? (JSON.parse(readFileSync(join(dir, file), 'utf8')) as T) : undefined);

/** The triplets capture builds from a recorded combination (without the prompt pattern: `withPrompt` false). */
function tripletsOf(dir: string, withPrompt = true): { triplets: Triplet[]; ignored: string[] } {
  const spans = decodeTraces(readFileSync(join(dir, 'traces.json')), 'application/json').spans;
  const logs = existsSync(join(dir, 'logs.json')) ? decodeLogs(readFileSync(join(dir, 'logs.json')), 'application/json').logs : [];
  const ignored: string[] = [];
  const promptSources = withPrompt ? createPromptSourceExtractor(capture.custom) : undefined;
  const outcomes = buildTriplets(spans, { mappers: createMappers(capture.custom), defaultService: capture.defaultService, maxTextChars: capture.maxTextChars, conversation: capture.conversation, ...(promptSources ? { promptSources } : {}), onIgnored: (_s, op) => ignored.push(op) }, logs);
  return { triplets: outcomes.flatMap((o) => (o.kind === 'triplet' ? [o.triplet] : [])), ignored };
}

describe('captured from the recorded Python spans', () => {
  it('every combination has its recording', () => {
    expect(COMBINATIONS.filter((c) => !existsSync(join(FIXTURES, c.id, 'traces.json'))).map((c) => c.id)).toEqual([]);
  });

  for (const combo of COMBINATIONS) {
    const dir = join(FIXTURES, combo.id);
    it(`${combo.framework} + ${combo.instrumentation} (${combo.id})`, () => {
      const reports = read<TurnReport[]>(dir, 'reports.json')!;
      const { triplets } = tripletsOf(dir);
      const check = checkCapture(reports, triplets, FIRST_CHUNK_DELAY_MS);
      expect(check.phantoms).toEqual([]);
      expect(check.capabilities).toEqual(read<{ capabilities: Capabilities }>(dir, 'capture.json')!.capabilities);
      // Whatever a library does not give is a missing capability, never a wrong value.
      const wrong = check.problems.filter((p) => !/^(stream: TTFT|phantom)/.test(p));
      if (check.capabilities.query && check.capabilities.sources && check.capabilities.response) expect(wrong).toEqual([]);
      // Sources come from a retriever span, or only from the prompt, as the combination says (the table says which).
      const withoutPattern = checkCapture(reports, tripletsOf(dir, false).triplets, FIRST_CHUNK_DELAY_MS);
      expect(withoutPattern.capabilities.sources).toBe(!combo.sourcesFromPrompt);
    });
  }
});
