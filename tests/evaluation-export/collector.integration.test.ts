/**
 * Routing the verdicts through a real OpenTelemetry Collector (scripts/collector/, v0.148.0), as
 * docs/evaluation-export.md describes: `ragwatch start` exports its `gen_ai.evaluation.result` records over
 * OTLP/gRPC to the Collector's OTLP receiver, whose logs pipeline (batch processor, `otlp_http` exporter)
 * forwards them to a logs backend — here the test receiver. What arrives keeps the event name, the
 * evaluated span's trace and span ids, and the double score: nothing the Collector's pdata would drop.
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
import { haveCollector, startCollector, type RunningCollector } from '../helpers/otel-collector.ts';
import { waitFor } from '../helpers/process.ts';

const ok = haveCollector('evaluation export through the Collector');

describe.skipIf(!ok)('gen_ai.evaluation.result through a real OpenTelemetry Collector', () => {
  let receiver: OtlpLogsReceiver;
  let otelcol: RunningCollector;
  let app: RunningApp;
  const dataDir = mkdtempSync(join(tmpdir(), 'rw-export-otelcol-'));
  const scored: Array<{ record: ScoreRecord; triplet: SampledTriplet }> = [];

  beforeAll(async () => {
    receiver = await startOtlpLogsReceiver();
    otelcol = await startCollector(`
receivers:
  otlp:
    protocols:
      grpc: {endpoint: "127.0.0.1:\${env:OTLP_GRPC_PORT}"}
processors:
  batch: {timeout: 200ms}
exporters:
  otlp_http:
    logs_endpoint: "${receiver.httpUrl}"
    encoding: proto
service:
  pipelines:
    logs: {receivers: [otlp], processors: [batch], exporters: [otlp_http]}
`);
    const config = loadConfig({ env: { OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: `http://127.0.0.1:${otelcol.ports.otlpGrpc}`, OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_LOGS_COMPRESSION: 'gzip' }, overrides: { server: { otlpPort: 0, httpPort: 0, otlpGrpc: false }, capture: { traceIdleMs: 50 }, metrics: { processMetrics: false }, store: { dataDir }, evaluationExport: { otlp: { scheduledDelayMs: 50 } } } });
    app = await startApp(config, silentLogger, { judge: new LexicalJudge() });
    app.pipeline.sinks.add({ onRecord: (record, triplet) => void (triplet && scored.push({ record, triplet })) });
    await waitFor(() => app.pipeline.ready, 30_000);
  }, 120_000);

  afterAll(async () => {
    await app?.shutdown();
    await otelcol?.stop();
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('arrives at the logs backend parented to the generation span, one record per scored metric', async () => {
    const { body, traceId, llmSpanId } = openInferenceTrace({ ...CLOCK_TOWER, llmAttributes: { 'gen_ai.response.id': 'chatcmpl-otelcol' } });
    expect((await postOtlp(`http://127.0.0.1:${app.otlp.port}/v1/traces`, JSON.stringify(body))).status).toBe(200);
    await waitFor(() => scored.length >= 1, 20_000);
    const { record } = scored[0]!;
    const expected = Object.keys(record.scores).length + Object.keys(record.skipped).length;
    const records = await waitFor(() => (receiver.records.length >= expected ? receiver.records : undefined), 30_000, 200);
    expect(records).toHaveLength(expected);
    for (const r of records) {
      expect(r).toMatchObject({ eventName: 'gen_ai.evaluation.result', traceId, spanId: llmSpanId });
      expect(r.attributes['gen_ai.response.id']?.value).toBe('chatcmpl-otelcol');
      expect(r.resource['service.name']).toBe('ragwatch');
    }
    for (const [metric, value] of Object.entries(record.scores)) {
      const r = records.find((x) => x.attributes['gen_ai.evaluation.name']?.value === metric)!;
      expect(r.attributes['gen_ai.evaluation.score.value']).toEqual({ kind: 'doubleValue', value });
    }
  }, 60_000);
});
