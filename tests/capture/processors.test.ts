/**
 * The host-side promises of RagwatchSpanProcessor / RagwatchLogRecordProcessor: onEnd/onEmit do
 * no I/O, never throw (even on spans whose getters throw), stay bounded and count what they drop.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RagwatchLogRecordProcessor, type LogRecordLike } from '../../src/roles/log-processor.ts';
import { RagwatchSpanProcessor, type ReadableSpanLike } from '../../src/roles/span-processor.ts';
import { Pipeline } from '../../src/roles/pipeline.ts';
import { stubJudge, testConfig } from './helpers/harness.ts';

const pipelines: Pipeline[] = [];
function pipeline(): Pipeline {
  const p = new Pipeline({ config: testConfig(), judge: stubJudge() });
  pipelines.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pipelines.splice(0).map((p) => p.shutdown(100)));
});

/** A span whose every getter throws (a broken SDK or a hostile wrapper). */
function hostileSpan(): ReadableSpanLike {
  const boom = () => {
    throw new Error('getter exploded');
  };
  return new Proxy({} as ReadableSpanLike, { get: boom, has: boom, ownKeys: boom, getOwnPropertyDescriptor: boom });
}

async function counter(p: Pipeline, name: string): Promise<string> {
  return p.instruments.registry.getSingleMetricAsString(name);
}

describe('RagwatchSpanProcessor', () => {
  it('onEnd never throws on a span whose getters throw; the span is dropped and counted at drain time', async () => {
    const p = pipeline();
    const proc = new RagwatchSpanProcessor({ pipeline: p });
    expect(() => proc.onEnd(hostileSpan())).not.toThrow();
    await proc.forceFlush();
    expect(await counter(p, 'ragwatch_dropped_total')).toMatch(/ragwatch_dropped_total\{stage="processor",reason="unreadable_span"\} 1/);
    await proc.shutdown();
  });

  it('is bounded: beyond maxQueueSize the newest spans are dropped and counted, and onEnd stays cheap', async () => {
    const p = pipeline();
    const proc = new RagwatchSpanProcessor({ pipeline: p, maxQueueSize: 100, scheduledDelayMillis: 60_000 });
    const span = hostileSpan();
    const t0 = performance.now();
    for (let i = 0; i < 100_000; i++) proc.onEnd(span);
    const perCallUs = ((performance.now() - t0) * 1000) / 100_000;
    expect(perCallUs).toBeLessThan(5);
    await proc.forceFlush();
    expect(await counter(p, 'ragwatch_dropped_total')).toMatch(/stage="processor",reason="queue_full"\} 99900/);
    await proc.shutdown();
    await proc.shutdown(); // idempotent
    expect(() => proc.onEnd(span)).not.toThrow();
  });
});

describe('RagwatchLogRecordProcessor', () => {
  const record = (eventName: string | undefined, withSpan = true): LogRecordLike => ({
    hrTime: [1, 0],
    ...(withSpan ? { spanContext: { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) } } : {}),
    ...(eventName ? { eventName } : {}),
    body: { content: 'hi' },
    attributes: {},
  });

  it('keeps only GenAI events that belong to a span, and never throws', async () => {
    const p = pipeline();
    const proc = new RagwatchLogRecordProcessor({ pipeline: p });
    proc.onEmit(record('gen_ai.user.message'));
    proc.onEmit({ ...record(undefined), attributes: { 'event.name': 'gen_ai.choice' } });
    proc.onEmit(record('app.log'));
    proc.onEmit(record('gen_ai.user.message', false));
    expect(() => proc.onEmit(new Proxy({} as LogRecordLike, { get: () => { throw new Error('x'); } }))).not.toThrow();
    await proc.forceFlush();
    expect(await counter(p, 'ragwatch_logs_received_total')).toMatch(/ragwatch_logs_received_total\{source="processor"\} 2/);
    expect(await counter(p, 'ragwatch_dropped_total')).toMatch(/stage="log_processor",reason="unreadable_log"\} 1/);
    await proc.shutdown();
    await proc.shutdown();
  });

  it('the span processor drains its log processors before assembling (NodeSDK flushes traces before logs)', async () => {
    const p = pipeline();
    const spans = new RagwatchSpanProcessor({ pipeline: p, scheduledDelayMillis: 60_000 });
    const logs = new RagwatchLogRecordProcessor({ spanProcessor: spans, scheduledDelayMillis: 60_000 });
    logs.onEmit(record('gen_ai.choice'));
    await spans.forceFlush();
    expect(await counter(p, 'ragwatch_logs_received_total')).toMatch(/\{source="processor"\} 1/);
    await logs.shutdown();
    await spans.shutdown();
  });

  it('without a pipeline it warns and ignores records (a host is never broken)', async () => {
    const proc = new RagwatchLogRecordProcessor();
    expect(() => proc.onEmit(record('gen_ai.user.message'))).not.toThrow();
    await proc.shutdown();
  });
});
