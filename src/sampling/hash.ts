/**
 * Deterministic hash of a trace id to [0, 1): every replica and restart agrees, and a triplet
 * sampled at rate r is also sampled at every rate above r (samples nest).
 * @module
 */
import type { Triplet } from '../triplet.ts';

/** What a sampling decision hashes: the conversation id when there is one (a chat is judged whole or not at all), else the trace id. */
export function samplingKey(triplet: Pick<Triplet, 'traceId' | 'conversation'>): string {
  return triplet.conversation?.id !== undefined ? `conversation:${triplet.conversation.id}` : triplet.traceId;
}

/** FNV-1a (32-bit) of the string, scaled to [0, 1). */
export function unitHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) / 0x1_0000_0000;
}
