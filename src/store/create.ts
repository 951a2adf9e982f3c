/**
 * Opens the embedded review store of a scoring role (`store.dataDir`/ragwatch.sqlite) and turns a
 * scored production answer into a review item. A store that cannot be opened (read-only filesystem,
 * no permission) is logged and left out: scoring goes on, the review page and labels API answer 503.
 * @module
 */
import type { Registry } from 'prom-client';
import type { RagwatchConfig } from '../config/schema.ts';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { SampledTriplet, ScoreRecord } from '../triplet.ts';
import { ReviewStore, type ReviewItem } from './review-store.ts';
import { AnswerStore } from './answer-store.ts';
import { openStoreDatabase, storeFile } from './sqlite.ts';

/** The store of `config.store`, or undefined (logged) when it cannot be opened. */
export async function openReviewStore(config: RagwatchConfig, registry: Registry, logger: Logger): Promise<ReviewStore | undefined> {
  const file = storeFile(config.store.dataDir);
  try {
    const store = new ReviewStore({ db: await openStoreDatabase(config.store.dataDir), maxItems: config.store.maxReviewItems, maxLabels: config.store.maxLabels, registry });
    logger.info({ store: file }, 'review store open');
    return store;
  } catch (err) {
    logger.error({ store: file, err: errorMessage(err) }, 'review store unavailable (config key "store.dataDir", env RAGWATCH_DATA_DIR): no review page, no labels API');
    return undefined;
  }
}

/** The judged answers of `config.store` (the answer page), or undefined when off (`store.maxAnswers: 0`) or (logged) when the store cannot be opened. */
export async function openAnswerStore(config: RagwatchConfig, registry: Registry, logger: Logger): Promise<AnswerStore | undefined> {
  if (config.store.maxAnswers === 0) return undefined;
  const file = storeFile(config.store.dataDir);
  try {
    return new AnswerStore({ db: await openStoreDatabase(config.store.dataDir), maxAnswers: config.store.maxAnswers, maxPerSecond: config.store.maxAnswersPerSecond, maxTextChars: config.store.maxTextChars, registry });
  } catch (err) {
    logger.error({ store: file, err: errorMessage(err) }, 'answer store unavailable (config key "store.dataDir"): the answer page shows the trail only');
    return undefined;
  }
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * The review item of a scored answer. `band` is the score band (0–4) of the first metric of
 * `labelMetrics` the record holds; `undecided` says whether the calibration puts it in {good, bad}.
 */
export function reviewItemOf(record: ScoreRecord, triplet: SampledTriplet, options: { labelMetrics: Readonly<Record<string, readonly string[]>>; maxTextChars: number; undecided: (metric: string, judge: string, score: number) => boolean; now: number }): ReviewItem {
  const scores = Object.fromEntries(Object.entries(record.scores).filter((e): e is [string, number] => e[1] !== undefined));
  const first = Object.values(options.labelMetrics).flat().find((m) => scores[m] !== undefined);
  const score = first === undefined ? undefined : scores[first]!;
  const claims = record.details.claims.filter((c) => c.verdict === 'contradicted' || c.verdict === 'not_in_sources').map((c) => c.text);
  return {
    tripletId: record.tripletId,
    traceId: record.traceId,
    service: record.service,
    judge: record.judge.kind,
    band: score === undefined ? 0 : Math.min(4, Math.floor(score * 5)),
    needsReview: first !== undefined && options.undecided(first, record.judge.kind, score!),
    createdMs: options.now,
    query: clip(triplet.query, options.maxTextChars),
    response: clip(triplet.response, options.maxTextChars),
    sources: triplet.sources.slice(0, 20).map((s) => ({ ...(s.id !== undefined ? { id: s.id } : {}), content: clip(s.content, options.maxTextChars) })),
    scores,
    unsupported: [...claims, ...(record.details.unsupportedTokens ?? [])].filter((t) => t.trim() !== ''),
    // A follow-up cannot be labelled without the exchange that gives it meaning.
    ...(triplet.conversation ? { conversation: triplet.conversation } : {}),
  };
}
