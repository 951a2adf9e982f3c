/**
 * The local judge around a scripted runtime (the real model runs in the integration layer):
 * per-sentence verdicts aggregate into `claim_support` (the least-supported sentence), the embedded
 * metrics are scored beside it; answers the queue cannot take are shed (counted, skipped, never a
 * made-up score); a missing model is one line naming the command, the judge is not ready and keeps
 * scoring the rest, and it loads the model once it appears.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalJudge } from '../../../src/judges/local/local-judge.ts';
import type { LocalRuntime, TokenVerdict } from '../../../src/judges/local/runtime.ts';
import { createLogger } from '../../../src/log.ts';
import { ModelCache } from '../../../src/models/cache.ts';
import type { SampledTriplet } from '../../../src/triplet.ts';

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-local-judge-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const triplet = (response: string, id = 't1'): SampledTriplet => ({
  id, traceId: id.padStart(32, '0'), spanId: '1'.repeat(16), service: 'svc', timestamp: '2026-11-28T00:00:00Z',
  query: 'Where was Ada Lovelace born?', sources: [{ content: 'Ada Lovelace was born in London in 1815. She worked with Charles Babbage.' }],
  response, latency: { durationMs: 1 }, convention: 'custom', sampling: { weight: 1, stratum: 'all', rule: 'all' },
});

/** A runtime that says "unsupported" with the probability given for the sentence its suffix asks about. */
function scripted(bySentence: Record<string, number>, options: { mass?: number; delayMs?: number } = {}): LocalRuntime & { suffixes: string[] } {
  const suffixes: string[] = [];
  return {
    suffixes, contextTokens: 4096, gpu: false,
    countTokens: (t) => Math.ceil(t.length / 4),
    async verdict(prefix, suffix): Promise<TokenVerdict> {
      suffixes.push(suffix);
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      const key = Object.keys(bySentence).find((s) => suffix.includes(`>${s}</s-`)) ?? '*';
      return { unsupported: bySentence[key] ?? 0.1, mass: options.mass ?? 0.99, promptTokens: (prefix.length + suffix.length) >> 2, evaluatedTokens: suffix.length >> 2 };
    },
    dispose: async () => undefined,
  };
}

async function cacheWithModel(name: string): Promise<ModelCache> {
  const cache = new ModelCache(join(dir, name));
  const file = join(dir, `${name}.gguf`);
  writeFileSync(file, 'GGUF fake');
  await cache.add(file, { name });
  return cache;
}

describe('LocalJudge', () => {
  it('asks per sentence and scores claim_support as the least-supported sentence, next to the embedded metrics', async () => {
    const runtime = scripted({ 'Ada Lovelace was born in London.': 0.1, 'She was born in 1820.': 0.8 });
    const judge = new LocalJudge({ cache: await cacheWithModel('m1'), model: 'm1', loadRuntime: async () => runtime, embedded: { threads: 0 } });
    await judge.init();
    expect(judge.ready).toBe(true);
    const r = await judge.score(triplet('Ada Lovelace was born in London. She was born in 1820.'));
    if (!r.ok) throw r.error;
    expect(r.scores.claim_support).toBeCloseTo(0.2, 6);
    expect(r.details.claims).toEqual([
      { text: 'Ada Lovelace was born in London.', support: expect.closeTo(0.9, 6), verdict: 'supported' },
      { text: 'She was born in 1820.', support: expect.closeTo(0.2, 6), verdict: 'not_in_sources' },
    ]);
    // The lexical check ran beside it and saw the unsupported year.
    expect(r.scores.grounding_lexical).toBeLessThan(1);
    expect(r.details.unsupportedTokens).toContain('1820');
    expect(r.usage.calls).toBe(2);
    // Each sentence asked about alone (a false one must not drag a true one down); one sentence alone is asked as a whole answer.
    expect(runtime.suffixes.map((s) => /Statement from an answer to the question: <s-[0-9a-f]+>(.*?)<\/s-/.exec(s)?.[1])).toEqual(['Ada Lovelace was born in London.', 'She was born in 1820.']);
    const single = await judge.score(triplet('Ada Lovelace was born in London.'));
    if (!single.ok) throw single.error;
    expect(runtime.suffixes.at(-1)).toContain('Is the proposed answer correct and fully supported');
    expect(single.details.claims).toHaveLength(1);
    await judge.shutdown();
  });

  it('skips claim_support (never a score) when the model does not answer yes or no', async () => {
    const judge = new LocalJudge({ cache: await cacheWithModel('m2'), model: 'm2', loadRuntime: async () => scripted({}, { mass: 0.1 }), embedded: { threads: 0 } });
    await judge.init();
    const r = await judge.score(triplet('Ada Lovelace was born in London.'));
    if (!r.ok) throw r.error;
    expect(r.scores.claim_support).toBeUndefined();
    expect(r.skipped.claim_support).toBe('model_off_protocol');
    expect(r.scores.grounding_lexical).toBe(1);
    await judge.shutdown();
  });

  it('sheds what the queue cannot take: scored without claim_support, counted', async () => {
    const shed: string[] = [];
    const depths: number[] = [];
    const judge = new LocalJudge({ cache: await cacheWithModel('m3'), model: 'm3', maxQueue: 2, loadRuntime: async () => scripted({}, { delayMs: 150 }), embedded: { threads: 0 }, onShed: (r) => shed.push(r), onQueueDepth: (d) => depths.push(d) });
    await judge.init();
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => judge.score(triplet('Ada Lovelace was born in London.', `q${i}`))));
    const skipped = results.map((r) => (r.ok ? r.skipped.claim_support : 'failed'));
    expect(skipped.filter((s) => s === undefined)).toHaveLength(2);
    expect(skipped.filter((s) => s === 'shed_queue_full')).toHaveLength(3);
    expect(shed).toEqual(['queue_full', 'queue_full', 'queue_full']);
    expect(Math.max(...depths)).toBe(2);
    expect(depths.at(-1)).toBe(0);
    for (const r of results) expect(r.ok && r.scores.grounding_lexical).toBe(1);
    await judge.shutdown();
  });

  it('keeps to its answers-per-minute budget', async () => {
    const judge = new LocalJudge({ cache: await cacheWithModel('m4'), model: 'm4', answersPerMinute: 2, loadRuntime: async () => scripted({}), embedded: { threads: 0 } });
    await judge.init();
    const skipped = [];
    for (let i = 0; i < 4; i++) {
      const r = await judge.score(triplet('Ada Lovelace was born in London.', `b${i}`));
      skipped.push(r.ok ? r.skipped.claim_support : 'failed');
    }
    expect(skipped).toEqual([undefined, undefined, 'shed_rate_budget', 'shed_rate_budget']);
    await judge.shutdown();
  });

  it('with the model missing: one line naming the command, not ready, the rest scored; loads it once it appears', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (l: string) => void lines.push(l) });
    const cache = new ModelCache(join(dir, 'late'));
    const judge = new LocalJudge({ cache, model: 'late-model', retryMs: 50, loadRuntime: async () => scripted({}), embedded: { threads: 0 }, logger });
    await judge.init();
    expect(judge.ready).toBe(false);
    const before = await judge.score(triplet('Ada Lovelace was born in London.'));
    expect(before.ok && before.skipped.claim_support).toBe('model_not_loaded');
    expect(before.ok && before.scores.grounding_lexical).toBe(1);
    await new Promise((r) => setTimeout(r, 200));
    const missing = lines.filter((l) => l.includes('is not in the model cache'));
    expect(missing).toHaveLength(1);
    expect(missing[0]).toContain('ragwatch models add FILE.gguf --name late-model');
    writeFileSync(join(dir, 'late.gguf'), 'GGUF late');
    await cache.add(join(dir, 'late.gguf'), { name: 'late-model' });
    for (let i = 0; i < 50 && !judge.ready; i++) await new Promise((r) => setTimeout(r, 20));
    expect(judge.ready).toBe(true);
    const after = await judge.score(triplet('Ada Lovelace was born in London.'));
    expect(after.ok && after.scores.claim_support).toBeCloseTo(0.9, 6);
    await judge.shutdown();
  });

  it('fails init for offline commands when the model is missing (requireModel)', async () => {
    const judge = new LocalJudge({ cache: new ModelCache(join(dir, 'none')), requireModel: true, loadRuntime: async () => scripted({}), embedded: { threads: 0 } });
    await expect(judge.init()).rejects.toMatchObject({ code: 'RAGWATCH_MODEL_MISSING', message: expect.stringContaining('ragwatch models pull qwen2.5-coder-1.5b-instruct') });
    await judge.shutdown();
  });
});
