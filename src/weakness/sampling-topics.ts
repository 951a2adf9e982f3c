/**
 * Stratified sampling by question topic (`sampling.strata.by: topic`, HCAT §2): the sampler needs a
 * topic per triplet before it is judged, on the capture path, where an embedding (milliseconds) is too
 * dear. It uses the topic model's c-TF-IDF words instead ({@link lexicalTopic}, microseconds): a
 * deterministic function of the question, so the weights 1/p stay unbiased, even where the word topic
 * differs from the embedding topic the breakdowns use. The model comes from the scoring process itself
 * (`ragwatch start`) or, in split mode, from the topic-models topic.
 * @module
 */
import type { RagwatchConfig } from '../config/schema.ts';
import type { Logger } from '../log.ts';
import { createKafka } from '../transport/kafka-client.ts';
import { preferModel } from './live-topics.ts';
import { TopicModelBus } from './topic-bus.ts';
import { lexicalTopic, type TopicModel } from './topics.ts';

/** A topic-by-words function for the sampler over a model that may change. */
export class SamplingTopics {
  #model: TopicModel | undefined;
  readonly #source: (() => TopicModel | undefined) | undefined;

  /** `source`: the model of the process that fits it (`ragwatch start`); without, models arrive by {@link offer}. */
  constructor(source?: () => TopicModel | undefined) {
    this.#source = source;
  }

  /** Takes a shared model when it wins ({@link preferModel}). */
  offer(model: TopicModel): void {
    if (Array.isArray(model.labels) && preferModel(model, this.#model)) this.#model = model;
  }

  /** The question's topic id, undefined while no model is known. Never throws. */
  readonly topicOf = (query: string): string | undefined => {
    const model = this.#source?.() ?? this.#model;
    return model ? lexicalTopic(model, query) : undefined;
  };
}

/** Split-mode sampling processes (collector with local assembly, assembler): the shared model read from Kafka; undefined unless `by: topic` on Kafka. */
export function sharedSamplingTopics(config: RagwatchConfig, logger: Logger): { topics: SamplingTopics; shutdown: () => Promise<void> } | undefined {
  if (config.sampling.strata.by !== 'topic' || config.transport.kind !== 'kafka') return undefined;
  const topics = new SamplingTopics();
  const bus = new TopicModelBus({ kafka: createKafka(config.transport.kafka, logger, '-topics'), section: config.transport.kafka, onModel: (m) => topics.offer(m), logger });
  void bus.start();
  return { topics, shutdown: () => bus.shutdown() };
}
