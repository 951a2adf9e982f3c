/**
 * Examples buffer: keeps only low-scoring records, bounded ring (oldest overwritten), clipped text,
 * newest first.
 */
import { describe, expect, it } from 'vitest';
import { ExamplesBuffer } from '../../src/metrics/examples.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';

function record(id: string, groundedness: number): ScoreRecord {
  return {
    tripletId: id,
    traceId: `trace-${id}`,
    service: 'rag',
    stratum: 'default',
    weight: 1,
    timestamp: new Date().toISOString(),
    judge: { kind: 'llm' },
    scores: { groundedness },
    skipped: {},
    details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] },
    diagnosis: [],
    usage: { calls: 1, inputTokens: 1, outputTokens: 1, durationMs: 1 },
  };
}

const triplet = (response: string) => ({ query: 'q?', response, sources: [{ content: 'src' }] }) as unknown as SampledTriplet;

describe('ExamplesBuffer', () => {
  it('keeps only records below a threshold, the newest `maxRecords`, with clipped text', () => {
    const buf = new ExamplesBuffer({ maxRecords: 3, maxTextChars: 10, thresholds: { groundedness: 0.7 } });
    expect(buf.add(record('high', 0.9), triplet('fine'))).toBe(false);
    for (let i = 1; i <= 5; i++) expect(buf.add(record(`low${i}`, 0.1 * i), triplet(`response number ${i}`))).toBe(true);
    expect(buf.size).toBe(3);
    const all = buf.query();
    expect(all.map((e) => e.record.tripletId)).toEqual(['low5', 'low4', 'low3']);
    expect(all[0]!.response).toBe('response n…');
    expect(buf.query({ metric: 'groundedness', below: 0.45 }).map((e) => e.record.tripletId)).toEqual(['low4', 'low3']);
    expect(buf.query({ limit: 1 }).map((e) => e.record.tripletId)).toEqual(['low5']);
    expect(buf.query({ metric: 'faithfulness' })).toEqual([]);
  });

  it('maxRecords 0 disables it', () => {
    const buf = new ExamplesBuffer({ maxRecords: 0, thresholds: { groundedness: 0.7 } });
    expect(buf.add(record('x', 0.1))).toBe(false);
    expect(buf.query()).toEqual([]);
  });
});
