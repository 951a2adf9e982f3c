import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { isTracingSuppressed } from '@opentelemetry/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LlmJudge } from '../../../src/judges/llm/llm-judge.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.ts';
import { oracleResponder } from '../helpers/oracle.ts';
import { CLOCK_QUERY, CLOCK_RESPONSE, CLOCK_SOURCES, triplet } from '../helpers/triplets.ts';

let fake: FakeOpenAI;
const originalFetch = globalThis.fetch;
const suppressedAtFetch: boolean[] = [];
const manager = new AsyncLocalStorageContextManager();

beforeAll(async () => {
  fake = await startFakeOpenAI(oracleResponder());
  context.setGlobalContextManager(manager.enable());
  // The HTTP layer an instrumentation would hook: record whether tracing is suppressed there.
  globalThis.fetch = (input, init) => {
    suppressedAtFetch.push(isTracingSuppressed(context.active()));
    return originalFetch(input, init);
  };
});
afterAll(async () => {
  globalThis.fetch = originalFetch;
  context.disable();
  await fake.close();
});

it('every judge HTTP call runs with tracing suppressed (not captured back into ragwatch)', async () => {
  const judge = new LlmJudge({ baseUrl: fake.baseURL, apiKey: 'k' });
  const r = await judge.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE));
  expect(r.ok).toBe(true);
  expect(suppressedAtFetch).toHaveLength(3);
  expect(suppressedAtFetch.every(Boolean)).toBe(true);
  expect(isTracingSuppressed(context.active())).toBe(false);
});
