/**
 * A check kafkajs 2.2.4 needs after every `send`: when a partition's leader dies mid-send and the
 * partition moves to a broker that already answered for its own partitions in the same send,
 * kafkajs' retry skips it (it resends only to brokers without an answer) and `send` resolves as if
 * everything were written (kafkajs issue #1303, seen as 9 of 500 traces missing from the spans
 * topic in the broker-failover test). The partitioner records where each message went; what has
 * no acknowledged partition in the answer is sent again.
 * @module
 */
import type { ICustomPartitioner, Message, RecordMetadata } from 'kafkajs';

/** Message → the partition kafkajs' last attempt put it in. */
export type PartitionChoices = WeakMap<Message, number>;

/** Wraps a partitioner so that every choice is recorded in `assigned`. */
export function recordingPartitioner(inner: ICustomPartitioner, assigned: PartitionChoices): ICustomPartitioner {
  return () => {
    const choose = inner();
    return (args) => {
      const partition = choose(args);
      assigned.set(args.message, partition);
      return partition;
    };
  };
}

/** The messages of a `send` to `topic` whose partition has no error-free entry in kafkajs' answer. */
export function unacknowledged(topic: string, messages: readonly Message[], answer: readonly RecordMetadata[], assigned: PartitionChoices): Message[] {
  const written = new Set(answer.filter((m) => m.topicName === topic && m.errorCode === 0).map((m) => m.partition));
  return messages.filter((m) => {
    const partition = assigned.get(m);
    return partition === undefined || !written.has(partition);
  });
}

/** Thrown when a send still leaves messages unacknowledged after its rounds; the batch is retried. */
export class UnacknowledgedSendError extends Error {
  /** Classified like a leader moving (`ragwatch_kafka_connection_errors_total{reason="unavailable"}`). */
  readonly type = 'NOT_LEADER_OR_FOLLOWER';
  constructor(topic: string, count: number, rounds: number) {
    super(`${count} messages to ${topic} had no acknowledged partition after ${rounds} sends (a partition leader moved during the send)`);
    this.name = 'UnacknowledgedSendError';
  }
}
