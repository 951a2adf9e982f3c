/**
 * Failed evaluations out (issue 46, `error.type`): through `ragwatch start` with the LLM judge talking
 * to the scripted OpenAI-compatible server, an answer the judge answers with garbage and one it answers
 * with HTTP 500 until the attempts run out each reach the OTLP receiver as one `gen_ai.evaluation.result`
 * record per metric the judge was to score — `error.type` the failure's code, no score, parented to the
 * generation span — under `select: failing` too; a well-judged answer beside them gets its scores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { judgedMetrics } from '../../src/evaluation-export/create.ts';
import { silentLogger } from '../../src/log.ts';
import { metricRegistryOf } from '../../src/metric-registry.ts';
import { startApp } from '../../src/roles/start.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.ts';
import { startOtlpLogsReceiver, type OtlpLogsReceiver } from '../helpers/otlp-logs-receiver.ts';
import { CLOCK_TOWER, openInferenceTrace, postOtlp } from '../helpers/otlp.ts';
import { metricValue, waitFor } from '../helpers/process.ts';
import { oracleResponder } from '../judges/helpers/oracle.ts';

let receiver: OtlpLogsReceiver;
let judge: FakeOpenAI;
const dirs: string[] = [];
const oracle = oracleResponder();

beforeAll(async () => {
  receiver = await startOtlpLogsReceiver();
  judge = await startFakeOpenAI();
  judge.setResponder((req) => {
    const body = JSON.stringify(req.body ?? {});
    if (body.includes('GARBAGE-ANSWER')) return { content: 'no JSON here, sorry' };
    if (body.includes('DOWN-ANSWER')) return { status: 500 };
    return oracle(req);
  });
});
afterAll(async () => {
  await receiver.close();
  await judge.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe.each(['all', 'failing'] as const)('failed evaluations with select: %s', (select) => {
  it('sends one error.type record per metric the judge was to score, parented to the generation span', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rw-export-fail-'));
    dirs.push(dataDir);
    const config = loadConfig({
      env: {},
      overrides: {
        server: { otlpPort: 0, httpPort: 0, otlpGrpc: false },
        capture: { traceIdleMs: 50 },
        metrics: { processMetrics: false },
        store: { dataDir },
        judge: { kind: 'llm', baseUrl: judge.baseURL, apiKey: 'test-key', llm: { embeddings: 'endpoint', maxRetries: 0, breakerFailureThreshold: 100, timeoutMs: 10_000 } },
        // Two attempts per answer: the 500s fail for good on the second, 100 ms later.
        transport: { kafka: { consumer: { maxAttempts: 2, retryBackoffMs: 100 } } },
        evaluationExport: { select, otlp: { endpoint: receiver.httpUrl, protocol: 'http/protobuf', scheduledDelayMs: 50 } },
      },
    });
    const expected = [...judgedMetrics(metricRegistryOf(config))('llm')].sort();
    expect(expected).toContain('groundedness');
    expect(expected).not.toContain('pii_free');
    const app = await startApp(config, silentLogger);
    try {
      await waitFor(() => app.pipeline.ready, 30_000);
      const before = receiver.records.length;
      const send = async (tag: string) => {
        const { body, traceId, llmSpanId } = openInferenceTrace({ ...CLOCK_TOWER, query: `${CLOCK_TOWER.query} ${tag}`, llmAttributes: { 'gen_ai.response.id': `chatcmpl-${tag}-${select}` } });
        expect((await postOtlp(`http://127.0.0.1:${app.otlp.port}/v1/traces`, JSON.stringify(body))).status).toBe(200);
        return { traceId, llmSpanId };
      };
      const garbage = await send('GARBAGE-ANSWER');
      const down = await send('DOWN-ANSWER');
      const good = await send('fine');
      const of = (traceId: string) => receiver.records.slice(before).filter((r) => r.traceId === traceId);
      await waitFor(() => of(garbage.traceId).length >= expected.length && of(down.traceId).length >= expected.length && of(good.traceId).length > 0, 30_000);
      // Let a late duplicate show up if there were one.
      await new Promise((r) => setTimeout(r, 300));
      for (const [{ traceId, llmSpanId }, reason, tag] of [[garbage, 'RAGWATCH_JUDGE_MALFORMED', 'GARBAGE-ANSWER'], [down, 'RAGWATCH_JUDGE_UNAVAILABLE', 'DOWN-ANSWER']] as const) {
        const mine = of(traceId);
        expect(mine.map((r) => String(r.attributes['gen_ai.evaluation.name']?.value)).sort()).toEqual(expected);
        for (const r of mine) {
          expect(r.eventName).toBe('gen_ai.evaluation.result');
          expect(r.spanId).toBe(llmSpanId);
          expect(r.attributes['error.type']?.value).toBe(reason);
          expect(r.attributes['gen_ai.evaluation.score.value']).toBeUndefined();
          expect(r.attributes['gen_ai.evaluation.score.label']).toBeUndefined();
          expect(r.attributes['gen_ai.response.id']?.value).toBe(`chatcmpl-${tag}-${select}`);
          expect(r.attributes['ragwatch.judge.kind']?.value).toBe('llm');
          expect(r.attributes['ragwatch.judge.model']?.value).toBe('gpt-4o-mini');
        }
      }
      // The well-judged answer: scores, and no error.type but for metrics the judge skipped.
      const scored = of(good.traceId);
      expect(scored.some((r) => r.attributes['gen_ai.evaluation.score.value'] !== undefined)).toBe(true);
      for (const r of scored) expect(String(r.attributes['error.type']?.value ?? 'none')).not.toMatch(/^RAGWATCH_/);
      if (select === 'failing') for (const r of scored) if (r.attributes['gen_ai.evaluation.score.label']) expect(r.attributes['gen_ai.evaluation.score.label']?.value).toBe('fail');
      const text = await app.pipeline.instruments.registry.metrics();
      expect(metricValue(text, 'ragwatch_triplets_failed_total', { reason: 'RAGWATCH_JUDGE_MALFORMED' })).toBe(1);
      expect(metricValue(text, 'ragwatch_triplets_failed_total', { reason: 'RAGWATCH_JUDGE_UNAVAILABLE' })).toBe(1);
    } finally {
      await app.shutdown();
    }
  }, 90_000);
});
