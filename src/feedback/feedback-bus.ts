/**
 * Split mode: feedback and the answers it joins travel on the labels topic (`transport.kafka.topics.labels`,
 * compacted), beside the reviewers' labels and apart from them: `{feedback}` keyed `feedback\0<id>`
 * (the latest of an item wins compaction) and `{feedbackAnswer}` keyed `feedback-answer\0<triplet>\0<judge>`.
 * Collectors only publish; every scorer replica reads the whole topic in a group of its own, keeps every
 * item, and shares the scores of an answer it scored once feedback names it — so every replica holds
 * the same pairs and draws the same agreement, whichever replica scored the answer.
 * @module
 */
import type { Kafka } from 'kafkajs';
import type { RagwatchConfig } from '../config/schema.ts';
import { errorMessage } from '../errors.ts';
import { silentLogger, type Logger } from '../log.ts';
import { KafkaBroadcast } from '../transport/kafka-broadcast.ts';
import type { FeedbackAnswer, FeedbackItem } from './types.ts';

/** Options of {@link FeedbackBus}. */
export interface FeedbackBusOptions {
  kafka: Kafka;
  section: RagwatchConfig['transport']['kafka'];
  /** Called with every item read (own ones included); absent: publish only (a collector). */
  onFeedback?: (item: FeedbackItem) => void;
  /** Called with every shared answer read. */
  onAnswer?: (answer: FeedbackAnswer) => void;
  logger?: Logger;
}

export class FeedbackBus {
  readonly #bus: KafkaBroadcast;
  readonly #o: FeedbackBusOptions;
  readonly #logger: Logger;

  constructor(options: FeedbackBusOptions) {
    this.#o = options;
    this.#logger = options.logger ?? silentLogger;
    const writeOnly = !options.onFeedback && !options.onAnswer;
    this.#bus = new KafkaBroadcast({ kafka: options.kafka, section: options.section, topic: options.section.topics.labels, name: 'feedback', onMessage: (v) => this.#take(v), writeOnly, logger: this.#logger });
  }

  /** Connects (and, unless publish-only, reads the topic from the beginning). Retries until it works or `shutdown()`. */
  start(): Promise<void> {
    return this.#bus.start();
  }

  /** Shares a feedback item. Never rejects (a failure is logged: the item stays where it was received). */
  publishFeedback(item: FeedbackItem): void {
    void this.#bus.publish(`feedback\u0000${item.id}`, JSON.stringify({ feedback: item }), { feedbackId: item.id });
  }

  /** Shares the scores of an answer that has feedback. */
  publishAnswer(answer: FeedbackAnswer): void {
    void this.#bus.publish(`feedback-answer\u0000${answer.tripletId}\u0000${answer.judge}`, JSON.stringify({ feedbackAnswer: answer }), { tripletId: answer.tripletId });
  }

  #take(value: Buffer): void {
    try {
      const m = JSON.parse(value.toString('utf8')) as { feedback?: FeedbackItem; feedbackAnswer?: FeedbackAnswer };
      const f = m.feedback;
      if (f && typeof f.id === 'string' && (f.kind === 'thumbs' || f.kind === 'rating') && typeof f.value === 'number' && typeof f.service === 'string' && typeof f.createdMs === 'number') this.#o.onFeedback?.(f);
      const a = m.feedbackAnswer;
      if (a && typeof a.tripletId === 'string' && typeof a.traceId === 'string' && typeof a.judge === 'string' && a.scores && typeof a.scores === 'object') this.#o.onAnswer?.(a);
    } catch (err) {
      this.#logger.warn({ err: errorMessage(err) }, 'unreadable message on the labels topic skipped (feedback)');
    }
  }

  /** Leaves the topic. Idempotent. */
  shutdown(): Promise<void> {
    return this.#bus.shutdown();
  }
}
