/**
 * The OTLP writer retries as the OTLP specification asks: retryable HTTP statuses and gRPC codes are
 * retried, Retry-After and RetryInfo are honoured, other failures are dropped at once, a partial
 * success counts its rejected records; every outcome lands in the export counters.
 */
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluationExportSection } from '../../src/config/sections/evaluation-export.ts';
import { ExportInstruments } from '../../src/evaluation-export/batch-writer.ts';
import { createOtlpWriter } from '../../src/evaluation-export/otlp-writer.ts';
import { grpcOutcome } from '../../src/evaluation-export/grpc-transport.ts';
import { retryAfterMs, sendWithRetry } from '../../src/evaluation-export/retry.ts';
import type { EvaluationResult } from '../../src/evaluation-export/types.ts';
import { startOtlpLogsReceiver, type OtlpLogsReceiver } from '../helpers/otlp-logs-receiver.ts';
import { metricValue } from '../helpers/process.ts';

let receiver: OtlpLogsReceiver;
beforeAll(async () => {
  receiver = await startOtlpLogsReceiver();
});
afterAll(() => receiver.close());

function results(n: number): EvaluationResult[] {
  return Array.from({ length: n }, (_, i) => ({ tripletId: `t${i}`, traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), name: 'groundedness', scoreValue: i % 2, scoreLabel: i % 2 ? 'pass' : 'fail', judge: { kind: 'llm' }, service: 'svc', timeMs: Date.now() }));
}

function writerFor(protocol: 'http/protobuf' | 'http/json' | 'grpc', overrides: Record<string, unknown> = {}) {
  const registry = new Registry();
  const instruments = new ExportInstruments(registry);
  const config = evaluationExportSection.parse({ otlp: { endpoint: protocol === 'grpc' ? receiver.grpcUrl : receiver.httpUrl, protocol, scheduledDelayMs: 10, retry: { initialBackoffMs: 50, maxBackoffMs: 200 }, ...overrides } }).otlp;
  const writer = createOtlpWriter({ config: { ...config, endpoint: config.endpoint! }, instruments, identity: { serviceName: 'ragwatch', version: 'test' } });
  const value = async (name: string, labels: Record<string, string>) => metricValue(await registry.metrics(), name, labels) ?? 0;
  return { writer, value };
}

async function sent(protocol: 'http/protobuf' | 'http/json' | 'grpc', script: OtlpLogsReceiver['script'], n = 4, overrides: Record<string, unknown> = {}) {
  receiver.script = [...script];
  const requestsBefore = receiver.requests;
  const timesBefore = receiver.requestTimes.length;
  const { writer, value } = writerFor(protocol, overrides);
  writer.write(results(n));
  await writer.forceFlush();
  await writer.shutdown();
  return {
    requests: receiver.requests - requestsBefore,
    times: receiver.requestTimes.slice(timesBefore),
    exported: await value('ragwatch_evaluation_exported_total', { writer: 'otlp' }),
    retries: await value('ragwatch_evaluation_export_retries_total', { writer: 'otlp' }),
    dropped: (reason: string) => value('ragwatch_evaluation_export_dropped_total', { writer: 'otlp', reason }),
  };
}

describe('OTLP/HTTP retries', () => {
  it('retries 503 after its Retry-After, then delivers', async () => {
    const r = await sent('http/protobuf', [{ http: 503, retryAfter: '1' }]);
    expect(r.requests).toBe(2);
    expect(r.times[1]! - r.times[0]!).toBeGreaterThanOrEqual(950);
    expect(r.exported).toBe(4);
    expect(r.retries).toBe(1);
  });

  it('retries 429, 502 and 504 with backoff; gives up after maxAttempts, counted', async () => {
    const r = await sent('http/json', [{ http: 429 }, { http: 502 }, { http: 504 }], 3, { retry: { maxAttempts: 3, initialBackoffMs: 20, maxBackoffMs: 50 } });
    expect(r.requests).toBe(3);
    expect(r.exported).toBe(0);
    expect(await r.dropped('retries_exhausted')).toBe(3);
  });

  it('never retries a 400: the batch is dropped as rejected', async () => {
    const r = await sent('http/protobuf', [{ http: 400, body: 'bad data' }]);
    expect(r.requests).toBe(1);
    expect(r.exported).toBe(0);
    expect(await r.dropped('rejected')).toBe(4);
  });

  it('counts the records a partial success rejected', async () => {
    const r = await sent('http/json', [{ partialRejected: 3 }], 5);
    expect(r.exported).toBe(2);
    expect(await r.dropped('partial_rejected')).toBe(3);
    const p = await sent('http/protobuf', [{ partialRejected: 1 }], 5);
    expect(p.exported).toBe(4);
    expect(await p.dropped('partial_rejected')).toBe(1);
  });

  it('gives a batch up when a Retry-After ends past maxElapsedMs', async () => {
    const r = await sent('http/protobuf', [{ http: 503, retryAfter: '60' }], 2, { retry: { maxElapsedMs: 5_000 } });
    expect(r.requests).toBe(1);
    expect(await r.dropped('retries_exhausted')).toBe(2);
  });
});

describe('OTLP/gRPC retries', () => {
  it('retries UNAVAILABLE, then delivers', async () => {
    const r = await sent('grpc', [{ grpcCode: 14 }]);
    expect(r.requests).toBe(2);
    expect(r.exported).toBe(4);
  });

  it('retries RESOURCE_EXHAUSTED only with a RetryInfo, after its delay', async () => {
    const without = await sent('grpc', [{ grpcCode: 8 }]);
    expect(without.requests).toBe(1);
    expect(await without.dropped('rejected')).toBe(4);
    const withInfo = await sent('grpc', [{ grpcCode: 8, retryDelaySeconds: 1 }]);
    expect(withInfo.requests).toBe(2);
    expect(withInfo.times[1]! - withInfo.times[0]!).toBeGreaterThanOrEqual(950);
    expect(withInfo.exported).toBe(4);
  });

  it('never retries INVALID_ARGUMENT or UNAUTHENTICATED', async () => {
    for (const code of [3, 16]) {
      const r = await sent('grpc', [{ grpcCode: code }], 2);
      expect(r.requests).toBe(1);
      expect(await r.dropped('rejected')).toBe(2);
    }
  });

  it('classifies every gRPC code as the specification lists them', () => {
    const status = (code: number) => grpcOutcome({ code, details: 'x', metadata: undefined } as never).status;
    expect([1, 4, 10, 11, 14, 15].map(status)).toEqual(Array(6).fill('retryable'));
    expect([2, 3, 5, 6, 7, 8, 9, 12, 13, 16].map(status)).toEqual(Array(10).fill('failure'));
  });
});

describe('retry policy', () => {
  it('backs off ×1.5 from initialBackoffMs up to maxBackoffMs between attempts', async () => {
    const at: number[] = [];
    const policy = { maxAttempts: 6, initialBackoffMs: 100, maxBackoffMs: 300, maxElapsedMs: 60_000 };
    // random = 0.5: no jitter, so the waits are exactly 100, 150, 225, 300, 300 ms.
    const outcome = await sendWithRetry(async () => (at.push(performance.now()), { status: 'retryable', error: 'down' }), policy, new AbortController().signal, { random: () => 0.5 });
    expect(outcome).toMatchObject({ attempts: 6, exhausted: true });
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    [100, 150, 225, 300, 300].forEach((want, i) => expect(gaps[i]).toBeGreaterThanOrEqual(want - 5));
  }, 10_000);

  it('stops waiting when shut down', async () => {
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    const started = performance.now();
    const outcome = await sendWithRetry(async () => ({ status: 'retryable', error: 'down', retryAfterMs: 20_000 }), { maxAttempts: 5, initialBackoffMs: 100, maxBackoffMs: 300, maxElapsedMs: 60_000 }, abort.signal);
    expect(outcome.exhausted).toBe(true);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(Date.now() + 10_000).toUTCString())).toBeGreaterThan(8_000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });
});
