import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { isTracingSuppressed } from '@opentelemetry/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LlmJudge } from '../../../src/judges/llm/llm-judge.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.ts';
import { oracleResponder } from '../helpers/oracle.ts';
import { CLOCK_QUERY, CLOCK_RESPONSE, CLOCK_SOURCES, triplet } from '../helpers/triplets.ts';

let fake: FakeOpenAI;
const suppressedAtFetch: boolean[] = [];
const manager = new AsyncLocalStorageContextManager();
// Where an HTTP instrumentation hooks the client's requests (@opentelemetry/instrumentation-undici
// subscribes to this channel; the client sends through undici): record whether tracing is suppressed there.
const onRequest = (): void => void suppressedAtFetch.push(isTracingSuppressed(context.active()));

beforeAll(async () => {
  fake = await startFakeOpenAI(oracleResponder());
  context.setGlobalContextManager(manager.enable());
  subscribe('undici:request:create', onRequest);
});
afterAll(async () => {
  unsubscribe('undici:request:create', onRequest);
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
