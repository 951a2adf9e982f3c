/**
 * Span records (the spans topic's wire form): every recorded fixture of every convention gives the
 * same outcomes through records (compacted, redacted, JSON round trip) as through local capture;
 * PII is redacted before a record is built; infrastructure attributes and the resource's host data
 * never travel; bad records are named.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { fromLogRecord, fromSpanRecord, parseTraceBatch, toLogRecord, toSpanRecord, traceBatchSchema, type TraceBatch } from '../../src/assembly/span-record.ts';
import { Capture } from '../../src/capture/capture.ts';
import { decodeLogs, decodeTraces } from '../../src/capture/otlp/decode.ts';
import { createRedactor } from '../../src/capture/redaction/redact-outcome.ts';
import type { CapturedLog, CapturedSpan, GenerationOutcome } from '../../src/capture/types.ts';
import { loadConfig } from '../../src/config/load.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { rng } from '../helpers/rng.ts';

const dir = fileURLToPath(new URL('../fixtures/otlp/', import.meta.url));
const NAMES = ['genai', 'openinference', 'traceloop', 'vercel-ai', 'vercel-ai-v7', 'langfuse', 'custom', 'llamaindex'];

async function outcomes(name: string, spans: CapturedSpan[], logs: CapturedLog[]): Promise<GenerationOutcome[]> {
  const file = `${dir}${name}.ragwatch.yaml`;
  const config = loadConfig({ env: {}, overrides: existsSync(file) ? (parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {} });
  const out: GenerationOutcome[] = [];
  const capture = new Capture({ config: { ...config.capture, traceIdleMs: 2 ** 31 - 1, traceMaxAgeMs: 2 ** 31 - 1 }, instruments: createInstruments({ processMetrics: false }), onTriplet: () => undefined, onOutcome: (o) => out.push(o), sweepIntervalMs: 2 ** 31 - 1 });
  capture.addLogs(logs, 'otlp');
  capture.addSpans(spans, 'otlp');
  await capture.shutdown();
  return out;
}

/** Through the wire: one redacted, compacted batch per trace → JSON → validated → span model. */
function viaRecords(spans: CapturedSpan[], logs: CapturedLog[]): { spans: CapturedSpan[]; logs: CapturedLog[] } {
  const redactor = createRedactor();
  const out = { spans: [] as CapturedSpan[], logs: [] as CapturedLog[] };
  const traceIds = [...new Set([...spans.map((s) => s.traceId), ...logs.flatMap((l) => (l.traceId ? [l.traceId] : []))])];
  for (const traceId of traceIds) {
    const r = redactor.redactWith((f): TraceBatch => ({ traceId, spans: spans.filter((s) => s.traceId === traceId).map((s) => toSpanRecord(s, f)), logs: logs.filter((l) => l.traceId === traceId).map((l) => toLogRecord(l, f)) }));
    if (!r.ok) throw new Error('redaction failed');
    const batch = parseTraceBatch(JSON.stringify(r.value));
    if (typeof batch === 'string') throw new Error(batch);
    out.spans.push(...batch.spans.map((s) => fromSpanRecord(traceId, s)));
    out.logs.push(...batch.logs.map((l) => fromLogRecord(traceId, l)));
  }
  return out;
}

describe('span records', () => {
  it.each(NAMES)('%s: the same outcomes through records as through local capture', async (name) => {
    const spans = decodeTraces(readFileSync(`${dir}${name}.traces.json`), 'application/json').spans;
    const logs = existsSync(`${dir}${name}.logs.json`) ? decodeLogs(readFileSync(`${dir}${name}.logs.json`), 'application/json').logs : [];
    const local = await outcomes(name, spans, logs);
    const wired = viaRecords(spans, logs);
    const split = await outcomes(name, wired.spans, wired.logs);
    expect(local.length).toBeGreaterThan(0);
    expect(split).toEqual(local);
  });

  it('redacts PII in attributes, events and log bodies; drops infrastructure attributes and host resource data', () => {
    const span: CapturedSpan = {
      traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), name: 'chat', kind: 2, startMs: 1, endMs: 2,
      attributes: { 'gen_ai.prompt': 'mail jane.doe@example.com please', 'http.request.header.authorization': 'Bearer secret', 'process.command_line': 'node app.js', 'input.value': JSON.stringify({ q: 'call +1 415 555 0134' }) },
      events: [{ name: 'gen_ai.content.completion', timeMs: 2, attributes: { 'gen_ai.completion': 'jane.doe@example.com' } }],
      droppedEventsCount: 0, resource: { 'service.name': 'rag', 'host.name': 'node-17', 'process.pid': 42 }, scope: 'test',
    };
    const r = createRedactor().redactWith((f) => toSpanRecord(span, f));
    expect(r.ok).toBe(true);
    const wire = JSON.stringify(r.ok && r.value);
    expect(wire).not.toContain('jane.doe@example.com');
    expect(wire).not.toContain('555 0134');
    expect(wire).not.toContain('secret');
    expect(wire).not.toContain('node app.js');
    expect(wire).not.toContain('node-17');
    expect(r.ok && r.value.attributes['gen_ai.prompt']).toBe('mail <EMAIL_1> please');
    // One placeholder book per span: the same address is the same placeholder in the event.
    expect(r.ok && r.value.events[0]!.attributes['gen_ai.completion']).toBe('<EMAIL_1>');
    expect(r.ok && r.value.resource).toEqual({ 'service.name': 'rag' });
  });

  it('the compiled validator accepts exactly what the zod schema accepts (3,000 mutated records)', () => {
    const spans = decodeTraces(readFileSync(`${dir}openinference.traces.json`), 'application/json').spans;
    const traceId = spans[0]!.traceId;
    const base = JSON.stringify({ traceId, spans: spans.filter((s) => s.traceId === traceId).map((s) => toSpanRecord(s, (x) => x)), logs: [{ timeMs: 1, attributes: { a: [1, 'b', { c: null }] }, body: { text: 'hi' } }] });
    const random = rng(18);
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const replacements: unknown[] = [null, 'x', '', 1, -1, 1.5, 6, true, [], {}, [null], { k: [{}] }, 'a'.repeat(16), 'A'.repeat(32)];
    let accepted = 0;
    for (let i = 0; i < 3_000; i++) {
      const value = JSON.parse(base) as Record<string, unknown>;
      // Mutate 1–3 random places: replace a value, delete a key, or add an unknown key.
      for (let m = 1 + Math.floor(random() * 3); m > 0; m--) {
        let node: unknown = value;
        for (let depth = Math.floor(random() * 6); depth > 0 && node !== null && typeof node === 'object'; depth--) {
          const keys = Object.keys(node);
          if (keys.length === 0) break;
          const next = (node as Record<string, unknown>)[pick(keys)];
          if (next === null || typeof next !== 'object') break;
          node = next;
        }
        if (node === null || typeof node !== 'object') continue;
        const obj = node as Record<string, unknown>;
        const keys = Object.keys(obj);
        const op = random();
        if (op < 0.6 && keys.length > 0) obj[pick(keys)] = structuredClone(pick(replacements));
        else if (op < 0.85 && keys.length > 0 && !Array.isArray(obj)) delete obj[pick(keys)];
        else if (!Array.isArray(obj)) obj[`extra${i}`] = pick(replacements);
      }
      const ours = typeof parseTraceBatch(JSON.stringify(value)) !== 'string';
      expect(ours, JSON.stringify(value).slice(0, 400)).toBe(traceBatchSchema.safeParse(value).success);
      if (ours) accepted++;
    }
    // Both outcomes are exercised.
    expect(accepted).toBeGreaterThan(300);
    expect(accepted).toBeLessThan(2_700);
  });

  it('names what is wrong with a bad record', () => {
    expect(parseTraceBatch('{not json')).toMatch(/^invalid JSON/);
    expect(parseTraceBatch(JSON.stringify({ traceId: 'xyz', spans: [], logs: [] }))).toMatch(/^invalid span record: traceId/);
    expect(parseTraceBatch(JSON.stringify({ traceId: 'a'.repeat(32), spans: [{ spanId: 'b'.repeat(16) }], logs: [] }))).toMatch(/^invalid span record: spans\.0\.name/);
  });
});
