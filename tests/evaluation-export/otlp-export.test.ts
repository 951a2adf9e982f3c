/**
 * Done-when of issue 46 (evaluation results out): an OTLP receiver gets one `gen_ai.evaluation.result`
 * log record per scored metric, parented to the generation span's trace and span id, over each of the
 * three protocols — end to end through `ragwatch start` (OTLP trace in, scored by a deterministic
 * judge, records out); and a PII canary in the answer never appears in what is sent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { startApp, type RunningApp } from '../../src/roles/start.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';
import { startOtlpLogsReceiver, type OtlpLogsReceiver } from '../helpers/otlp-logs-receiver.ts';
import { CLOCK_TOWER, openInferenceTrace, postOtlp } from '../helpers/otlp.ts';
import { metricValue, waitFor } from '../helpers/process.ts';

const CANARY_EMAIL = 'canary.person@example-pii.org';
const CANARY_CARD = '4111 1111 1111 1111';

let receiver: OtlpLogsReceiver;
const dirs: string[] = [];

beforeAll(async () => {
  receiver = await startOtlpLogsReceiver();
});
afterAll(async () => {
  await receiver.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function appFor(protocol: 'http/protobuf' | 'http/json' | 'grpc'): Promise<{ app: RunningApp; scored: Array<{ record: ScoreRecord; triplet: SampledTriplet }> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rw-export-'));
  dirs.push(dataDir);
  const config = loadConfig({
    env: {},
    overrides: {
      server: { otlpPort: 0, httpPort: 0, otlpGrpc: false },
      capture: { traceIdleMs: 50 },
      metrics: { processMetrics: false },
      store: { dataDir },
      evaluationExport: { otlp: { endpoint: protocol === 'grpc' ? receiver.grpcUrl : receiver.httpUrl, protocol, scheduledDelayMs: 50 } },
    },
  });
  const app = await startApp(config, silentLogger, { judge: new LexicalJudge() });
  const scored: Array<{ record: ScoreRecord; triplet: SampledTriplet }> = [];
  app.pipeline.sinks.add({ onRecord: (record, triplet) => void (triplet && scored.push({ record, triplet })) });
  await waitFor(() => app.pipeline.ready, 30_000);
  return { app, scored };
}

describe.each(['http/protobuf', 'http/json', 'grpc'] as const)('OTLP evaluation export over %s', (protocol) => {
  it('sends one gen_ai.evaluation.result record per scored metric, parented to the generation span', async () => {
    const { app, scored } = await appFor(protocol);
    try {
      const before = receiver.records.length;
      // The answer carries a PII canary: capture redacts it, and the explanation is redacted again before it leaves.
      const request = { ...CLOCK_TOWER, response: `${CLOCK_TOWER.response} Write to ${CANARY_EMAIL} and pay with ${CANARY_CARD}.`, llmAttributes: { 'gen_ai.response.id': `chatcmpl-${protocol}` } };
      const { body, traceId, llmSpanId } = openInferenceTrace(request);
      const res = await postOtlp(`http://127.0.0.1:${app.otlp.port}/v1/traces`, JSON.stringify(body));
      expect(res.status).toBe(200);
      await waitFor(() => scored.length >= 1, 20_000);
      const { record, triplet } = scored[0]!;
      const expected = Object.keys(record.scores).length + Object.keys(record.skipped).length;
      expect(expected).toBeGreaterThanOrEqual(3);
      await waitFor(() => receiver.records.length - before >= expected, 20_000);
      const mine = receiver.records.slice(before).filter((r) => r.transport === protocol);
      expect(mine).toHaveLength(expected);
      expect(triplet.responseId).toBe(`chatcmpl-${protocol}`);
      for (const r of mine) {
        expect(r.eventName).toBe('gen_ai.evaluation.result');
        expect(r.traceId).toBe(traceId);
        expect(r.spanId).toBe(llmSpanId);
        expect(r.attributes['gen_ai.response.id']?.value).toBe(`chatcmpl-${protocol}`);
        expect(r.attributes['ragwatch.judge.kind']?.value).toBe('llm');
        expect(r.attributes['ragwatch.judge.model']?.value).toBe('lexical-test-judge');
        expect(r.resource['service.name']).toBe('ragwatch');
      }
      const byName = new Map(mine.map((r) => [String(r.attributes['gen_ai.evaluation.name']?.value), r]));
      expect([...byName.keys()].sort()).toEqual([...Object.keys(record.scores), ...Object.keys(record.skipped)].sort());
      for (const [metric, value] of Object.entries(record.scores)) {
        const r = byName.get(metric)!;
        // Always a double, 1.0 included (JSON: a number in doubleValue; protobuf: field 4).
        expect(r.attributes['gen_ai.evaluation.score.value']).toEqual({ kind: 'doubleValue', value });
        const threshold = app.quality.settings.alerts.metrics[metric as keyof typeof app.quality.settings.alerts.metrics]?.threshold;
        if (threshold !== undefined) expect(r.attributes['gen_ai.evaluation.score.label']?.value).toBe(value! <= threshold ? 'fail' : 'pass');
      }
      // The lexical judge flags the sentence with the canary as not in the sources: its explanation says so, redacted.
      const grounded = byName.get('groundedness')!;
      expect(String(grounded.attributes['gen_ai.evaluation.explanation']?.value)).toMatch(/unsupported claims: .*<EMAIL_1>/);
      for (const body of receiver.rawBodies) {
        expect(body.includes(CANARY_EMAIL)).toBe(false);
        expect(body.includes('4111 1111 1111 1111')).toBe(false);
        expect(body.includes('4111111111111111')).toBe(false);
      }
      // Counted once the receiver's answer is back (it may lag the records by a moment).
      await waitFor(async () => (metricValue(await app.pipeline.instruments.registry.metrics(), 'ragwatch_evaluation_exported_total', { writer: 'otlp' }) ?? 0) >= expected, 10_000);
    } finally {
      await app.shutdown();
    }
  }, 60_000);
});
