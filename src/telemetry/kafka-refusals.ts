/**
 * The process-wide tally of Kafka record batches a consumer's codec refused (a decompression bomb, or
 * bytes that cannot be decompressed). The codecs run inside kafkajs, which is shared by every consumer
 * of the process and knows no registry: they count here, and each registry's
 * `ragwatch_kafka_refused_batches_total` reads the tally when scraped.
 * @module
 */

const counts = new Map<string, { codec: string; reason: string; count: number }>();

/** Counts one refused record batch. */
export function countRefusedBatch(codec: string, reason: string): void {
  const key = `${codec}|${reason}`;
  const tally = counts.get(key) ?? { codec, reason, count: 0 };
  tally.count++;
  counts.set(key, tally);
}

/** Record batches refused since the process started, by codec and reason. */
export function refusedBatchCounts(): ReadonlyArray<{ codec: string; reason: string; count: number }> {
  return [...counts.values()];
}
