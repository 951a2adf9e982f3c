/**
 * The bound on turns judged per conversation: a long chat would otherwise take the judge's whole
 * budget. Counts the sampled turns of each conversation (an LRU of conversation ids, bounded), and
 * refuses a conversation's turns past `maxTurns` (rule `max_turns_per_conversation`, counted by the
 * pipeline as a sampling drop). Triplets without a conversation id pass unchanged.
 * @module
 */
import { LRUCache } from 'lru-cache';
import type { Triplet } from '../triplet.ts';
import type { Sampler, SamplingDecision } from './types.ts';

/** Conversations remembered at most (the least recently seen are forgotten first). */
const MAX_CONVERSATIONS = 100_000;

/** The rule name of a turn refused by the bound. */
export const MAX_TURNS_RULE = 'max_turns_per_conversation';

/** Wraps `inner` with the bound. */
export function boundTurnsPerConversation(inner: Sampler, maxTurns: number): Sampler {
  if (maxTurns <= 0) return inner;
  const turns = new LRUCache<string, number>({ max: MAX_CONVERSATIONS });
  return {
    shouldSample(triplet: Triplet, nowMs?: number): SamplingDecision {
      const decision = inner.shouldSample(triplet, nowMs);
      const id = triplet.conversation?.id;
      if (!decision.sampled || id === undefined) return decision;
      const n = turns.get(id) ?? 0;
      if (n >= maxTurns) return { sampled: false, rule: MAX_TURNS_RULE };
      turns.set(id, n + 1);
      return decision;
    },
    toString: () => `ConversationTurns{${maxTurns}}(${inner.toString()})`,
  };
}
