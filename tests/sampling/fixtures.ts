/** Deterministic triplets for sampling tests. */
import type { Triplet } from '../../src/triplet.ts';

/** A 32-hex trace id derived from a seed (stable across runs and processes). */
export function traceIdOf(seed: number): string {
  let h = (seed * 2654435761) >>> 0;
  let out = '';
  for (let i = 0; i < 4; i++) {
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
    h = Math.imul(h ^ (h >>> 12), 0x297a2d39) >>> 0;
    out += h.toString(16).padStart(8, '0');
  }
  return out;
}

/** A minimal valid triplet. */
export function tripletOf(seed: number, extra: Partial<Triplet> = {}): Triplet {
  const traceId = traceIdOf(seed);
  return {
    id: `id-${traceId}`,
    traceId,
    spanId: 'span',
    service: 'svc',
    timestamp: '2026-01-01T00:00:00.000Z',
    query: 'q',
    sources: [{ content: 's' }],
    response: 'r',
    latency: { durationMs: 100 },
    convention: 'openinference',
    ...extra,
  };
}
