/**
 * The two-turn chat the conversation capture tests send through each instrumentation: the first
 * exchange, then {@link RAG}'s question as the follow-up; and what its triplet must carry.
 */
import { expect } from 'vitest';
import type { Triplet } from '../../../src/triplet.ts';
import { RAG } from './harness.ts';

/** The first exchange of the chat. */
export const FIRST = { q: 'Where is the Chimnabai Clock Tower?', a: 'It is in Vadodara, Gujarat.' };

/** The follow-up's triplet: the question as typed, turn 2, the first exchange as history, and the id — pseudonymised (`k1_…`) or absent (anonymous). */
export function expectFollowUp(t: Triplet | undefined, id: 'pseudonymised' | 'anonymous'): void {
  expect(t?.query).toBe(RAG.query);
  if (id === 'anonymous') expect(t?.conversation?.id).toBeUndefined();
  else expect(t?.conversation?.id).toMatch(/^k1_[0-9a-f]{12}$/);
  expect(t?.conversation?.turn).toBe(2);
  expect(t?.conversation?.history).toEqual([{ role: 'user', content: FIRST.q }, { role: 'assistant', content: FIRST.a }]);
}
