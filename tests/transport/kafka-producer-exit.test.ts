/**
 * The producer thread must never keep a host alive: a process that sends, flushes with a timeout
 * while Kafka is unreachable, and then simply ends (no shutdown) exits by itself.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = (path: string) => JSON.stringify(new URL(`../../src/${path}`, import.meta.url).href);

describe('KafkaTripletProducer in a host that ends', () => {
  it('lets the process exit after a flush times out against an unreachable cluster', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ragwatch-exit-'));
    const file = join(dir, 'host.mjs');
    writeFileSync(
      file,
      `const { defaultConfig } = await import(${src('config/load.ts')});
const { createInstruments } = await import(${src('telemetry/instruments.ts')});
const { KafkaTripletProducer } = await import(${src('transport/kafka-producer.ts')});
const base = defaultConfig().transport.kafka;
const section = { ...base, brokers: ['127.0.0.1:1'], connectionTimeoutMs: 200 };
const producer = new KafkaTripletProducer({ section, instruments: createInstruments({ processMetrics: false }) });
producer.send({ id: 't', traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), service: 's', timestamp: new Date().toISOString(), query: 'q', sources: [{ content: 'c' }], response: 'r', latency: { durationMs: 1 }, convention: 'openinference', sampling: { weight: 1, stratum: 'all', rule: 'rate' } });
const started = Date.now();
await producer.forceFlush(500);
console.log('flushed after', Date.now() - started, 'ms, still buffered', producer.depth);
`,
    );
    const child = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 20_000 });
    rmSync(dir, { recursive: true, force: true });
    expect(child.error, 'the process did not exit by itself within 20 s').toBeUndefined();
    expect(child.status).toBe(0);
    expect(child.stdout).toMatch(/^flushed after \d+ ms, still buffered 1\n$/);
  }, 30_000);
});
