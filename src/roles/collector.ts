/**
 * `ragwatch collector`: OTLP ingest → span records on the spans topic for `ragwatch assembler`
 * (split assembly, the default), or capture → sample → triplets topic (`transport.kafka.assembly:
 * local`). The same servers as `ragwatch start`, without judging.
 * @module
 */
import type { RagwatchConfig } from '../config/schema.ts';
import type { Logger } from '../log.ts';
import { startApp, type RunningApp } from './start.ts';

/** Starts the collector role. */
export function startCollector(config: RagwatchConfig, logger: Logger): Promise<RunningApp> {
  return startApp(config, logger, { role: 'collector' });
}
