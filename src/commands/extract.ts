/**
 * `ragwatch extract`: reads OTLP trace (and log) export files, JSON or protobuf, and prints one
 * Triplet JSON per line on stdout. `--explain` also prints, on stderr, per generation span, which
 * mapper matched, where each field came from and what was missing. Starts no server and loads no
 * judge: only the capture stage runs.
 * @module
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Capture } from '../capture/capture.ts';
import { decodeLogs, decodeTraces, type OtlpMediaType } from '../capture/otlp/decode.ts';
import { redactionForPipeline } from '../capture/redaction/redact-outcome.ts';
import type { GenerationOutcome } from '../capture/types.ts';
import { loadConfig } from '../config/load.ts';
import { samplingAttributeKeys } from '../config/sampling-attributes.ts';
import { ConfigError } from '../errors.ts';
import { createInstruments } from '../telemetry/instruments.ts';
import type { Command } from './types.ts';

function mediaTypeOf(file: string): OtlpMediaType {
  if (file.endsWith('.json')) return 'application/json';
  if (file.endsWith('.pb') || file.endsWith('.binpb') || file.endsWith('.protobuf')) return 'application/x-protobuf';
  throw new ConfigError(`${file}: unknown file type (expected .json or .pb)`, []);
}

/** One `--explain` line for a generation outcome. */
export function explainLine(o: GenerationOutcome): string {
  const spanId = o.kind === 'triplet' ? o.triplet.spanId : o.spanId;
  const traceId = o.kind === 'triplet' ? o.triplet.traceId : o.traceId;
  const e = o.explain;
  const head = `${o.kind === 'triplet' ? 'triplet   ' : 'incomplete'} trace=${traceId} span=${spanId} "${e?.spanName ?? ''}" mapper=${o.mapper}`;
  const parts = [
    o.kind === 'incomplete' ? `missing=${o.missing.join(',')}` : undefined,
    `query<-${e?.querySource ?? 'none'}`,
    `sources<-${e?.sourcesSource ?? (e?.sourcesNote !== undefined ? `none (${e.sourcesNote})` : 'none')}`,
    `response<-${e?.responseSource ?? 'none'}`,
    e?.conversationSource !== undefined ? `conversation<-${e.conversationSource}` : undefined,
    e?.historyNote,
  ].filter((p): p is string => p !== undefined);
  return `${head}\n    ${parts.join('\n    ')}`;
}

export const extractCommand: Command = {
  name: 'extract',
  summary: 'print the triplets of OTLP trace export files (JSON or protobuf), one JSON per line',
  usage: `usage: ragwatch extract [--explain] [-c FILE] [--logs LOGFILE]... TRACEFILE...

  TRACEFILE           OTLP ExportTraceServiceRequest: .json (OTLP/JSON) or .pb (protobuf)
  --logs LOGFILE      OTLP ExportLogsServiceRequest with GenAI content events (repeatable)
  --explain           per generation span, on stderr: mapper, where each field came from, what was missing
  -c, --config FILE   YAML configuration (capture.* keys apply; default: $RAGWATCH_CONFIG, else defaults)`,
  async run(argv) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { config: { type: 'string', short: 'c' }, logs: { type: 'string', multiple: true }, explain: { type: 'boolean', default: false } },
    });
    if (positionals.length === 0) throw new ConfigError('extract: no trace file given', []);
    const config = loadConfig({ ...(values.config ? { file: values.config } : {}), offline: true });
    const outcomes: GenerationOutcome[] = [];
    const ignored: string[] = [];
    const capture = new Capture({
      // Files are complete: assemble only at the end, never by idle time.
      config: { ...config.capture, traceIdleMs: 2 ** 31 - 1, traceMaxAgeMs: 2 ** 31 - 1 },
      // As the pipeline redacts, with the attributes sampling reads (so a rule can be checked here).
      redaction: redactionForPipeline(config),
      attributeKeys: samplingAttributeKeys(config),
      instruments: createInstruments({ processMetrics: false }),
      onTriplet: () => undefined,
      onOutcome: (o) => outcomes.push(o),
      onIgnored: (span, operation) => ignored.push(`ignored    trace=${span.traceId} span=${span.spanId} "${span.name}" not a generation: ${operation}`),
      sweepIntervalMs: 2 ** 31 - 1,
    });
    let rejected = 0;
    for (const file of values.logs ?? []) {
      const decoded = decodeLogs(readFileSync(file), mediaTypeOf(file));
      rejected += decoded.rejected;
      capture.addLogs(decoded.logs, 'otlp');
    }
    for (const file of positionals) {
      const decoded = decodeTraces(readFileSync(file), mediaTypeOf(file));
      rejected += decoded.rejected;
      capture.addSpans(decoded.spans, 'otlp');
    }
    await capture.shutdown();
    for (const o of outcomes) {
      if (o.kind === 'triplet') process.stdout.write(`${JSON.stringify(o.triplet)}\n`);
      if (values.explain) process.stderr.write(`${explainLine(o)}\n`);
    }
    if (values.explain) {
      for (const line of ignored) process.stderr.write(`${line}\n`);
      const n = outcomes.filter((o) => o.kind === 'triplet').length;
      process.stderr.write(`${outcomes.length} generation span(s): ${n} triplet(s), ${outcomes.length - n} incomplete; ${ignored.length} other model call(s) ignored${rejected > 0 ? `; ${rejected} item(s) rejected by the decoder` : ''}\n`);
    }
  },
};
