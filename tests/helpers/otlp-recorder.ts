/**
 * An OTLP/HTTP receiver for tests that keeps what exporters send, as OTLP/JSON (the form of the
 * fixtures in tests/fixtures/otlp/), and can pass every body on unchanged to a real ragwatch.
 * Protobuf bodies are read with ragwatch's own OTLP descriptor, so a fixture holds the fields
 * ragwatch reads (ids as hex, int64 as decimal strings, as OTLP/JSON has them).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs/light.js';
import { OTLP_DESCRIPTOR } from '../../src/capture/otlp/proto/schema.ts';

const root = protobuf.Root.fromJSON(OTLP_DESCRIPTOR).resolveAll();
const TYPES = {
  traces: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'),
  logs: root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest'),
};
const ID_KEYS = new Set(['traceId', 'spanId', 'parentSpanId']);

/** Byte ids (base64 after toObject) as the hex OTLP/JSON wants; AnyValue bytes stay base64. */
function hexIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(hexIds);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = ID_KEYS.has(k) && typeof v === 'string' ? Buffer.from(v, 'base64').toString('hex') : hexIds(v);
  return out;
}

/** Options of {@link startOtlpRecorder}. */
export interface OtlpRecorderOptions {
  /** Base URL (e.g. `http://127.0.0.1:4318`) every body is passed on to; its answer is the recorder's. */
  forwardTo?: string;
}

/** A running recorder. */
export interface OtlpRecorder {
  /** Base URL for `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/traces` and `/v1/logs` are appended by exporters). */
  endpoint: string;
  /** Every trace export received so far, merged into one ExportTraceServiceRequest (OTLP/JSON). */
  traces(): { resourceSpans: unknown[] };
  /** Every logs export received so far, merged into one ExportLogsServiceRequest (OTLP/JSON). */
  logs(): { resourceLogs: unknown[] };
  /** Forgets what was received. */
  clear(): void;
  close(): Promise<void>;
}

/** Starts a recorder on 127.0.0.1 (random port). */
export async function startOtlpRecorder(options: OtlpRecorderOptions = {}): Promise<OtlpRecorder> {
  let resourceSpans: unknown[] = [];
  let resourceLogs: unknown[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const signal = req.url === '/v1/traces' ? 'traces' : req.url === '/v1/logs' ? 'logs' : undefined;
        const raw = Buffer.concat(chunks);
        if (req.method !== 'POST' || !signal) {
          res.writeHead(404).end();
          return;
        }
        try {
          const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
          const json = String(req.headers['content-type']).startsWith('application/json')
            ? (JSON.parse(body.toString('utf8')) as Record<string, unknown[]>)
            : (hexIds(TYPES[signal].toObject(TYPES[signal].decode(body), { longs: String, enums: Number, bytes: String })) as Record<string, unknown[]>);
          if (signal === 'traces') resourceSpans.push(...(json.resourceSpans ?? []));
          else resourceLogs.push(...(json.resourceLogs ?? []));
        } catch (err) {
          res.writeHead(400, { 'content-type': 'text/plain' }).end(`recorder: ${String(err)}`);
          return;
        }
        if (!options.forwardTo) {
          res.writeHead(200, { 'content-type': String(req.headers['content-type'] ?? 'application/x-protobuf') }).end();
          return;
        }
        const headers: Record<string, string> = {};
        for (const h of ['content-type', 'content-encoding', 'authorization']) if (typeof req.headers[h] === 'string') headers[h] = req.headers[h];
        const answer = await fetch(`${options.forwardTo}${req.url}`, { method: 'POST', headers, body: raw });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' }).end(Buffer.from(await answer.arrayBuffer()));
      })().catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`recorder: ${String(err)}`);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    traces: () => ({ resourceSpans: [...resourceSpans] }),
    logs: () => ({ resourceLogs: [...resourceLogs] }),
    clear: () => {
      resourceSpans = [];
      resourceLogs = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
