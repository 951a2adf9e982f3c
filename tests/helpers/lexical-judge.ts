/**
 * A deterministic test Judge (kind `llm`) that scores THELMA metrics lexically, so end-to-end
 * tests can drive groundedness and the diagnosis metrics from the traffic they send:
 * - groundedness: share of response sentences whose content words all occur in the sources
 *   (the others become `not_in_sources` claims, highlighted on the examples page);
 * - source_query_coverage / response_query_coverage: share of the query's content words found
 *   in the sources / in the response.
 */
import type { Judge, JudgeResult } from '../../src/judges/types.ts';
import type { SampledTriplet } from '../../src/triplet.ts';

const STOP = new Set(['the', 'and', 'was', 'who', 'what', 'when', 'which', 'for', 'with', 'that', 'this', 'its', 'are', 'were', 'has', 'have', 'from', 'after', 'into', 'did']);

/** Lowercased content words (≥ 3 letters/digits, no stop words). */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []).filter((w) => !STOP.has(w));
}

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => contentWords(s).length > 0);
}

function share(words: string[], pool: ReadonlySet<string>): number {
  return words.length === 0 ? 1 : words.filter((w) => pool.has(w)).length / words.length;
}

export class LexicalJudge implements Judge {
  readonly kind = 'llm' as const;
  readonly model = 'lexical-test-judge';
  ready = false;

  async init(): Promise<void> {
    this.ready = true;
  }

  async score(triplet: SampledTriplet): Promise<JudgeResult> {
    const sourceWords = new Set(triplet.sources.flatMap((s) => contentWords(s.content)));
    const responseWords = new Set(contentWords(triplet.response));
    const query = contentWords(triplet.query);
    const claims = sentences(triplet.response).map((text) => ({
      text,
      verdict: contentWords(text).every((w) => sourceWords.has(w)) ? ('supported' as const) : ('not_in_sources' as const),
    }));
    const scores: Record<string, number> = {
      source_query_coverage: share(query, sourceWords),
      response_query_coverage: share(query, responseWords),
    };
    const skipped: Record<string, string> = {};
    if (claims.length > 0) scores.groundedness = claims.filter((c) => c.verdict === 'supported').length / claims.length;
    else skipped.groundedness = 'no_claims';
    return {
      ok: true,
      scores,
      skipped,
      details: { claims, subQuestions: [], sources: [], redundantSentences: [] },
      usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 },
    };
  }

  async shutdown(): Promise<void> {
    this.ready = false;
  }
}
