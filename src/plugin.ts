/**
 * ragwatch inside a host service (`import { RagwatchSpanProcessor } from 'ragwatch/plugin'`): the span
 * and log processors alone, without the server, the judges or the Kafka client, so a host that
 * forwards to a ragwatch process loads only capture, redaction, sampling and an HTTP sender.
 * @module
 */
export { RagwatchSpanProcessor, fromReadableSpan } from './roles/span-processor.ts';
export type { RagwatchSpanProcessorOptions, ReadableSpanLike } from './roles/span-processor.ts';
export { RagwatchLogRecordProcessor, fromLogRecord } from './roles/log-processor.ts';
export type { RagwatchLogRecordProcessorOptions, LogRecordLike } from './roles/log-processor.ts';
export type { PluginSink } from './roles/plugin-sink.ts';
