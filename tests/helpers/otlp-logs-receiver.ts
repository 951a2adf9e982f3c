/**
 * An OTLP logs receiver for tests: `POST /v1/logs` (OTLP/protobuf and OTLP/JSON, gzip) and
 * `LogsService/Export` over gRPC, on loopback. Request bodies are decoded with the project's OTLP
 * protobuf descriptor (whose field numbers tests/capture/otlp/protobuf.test.ts checks against OTel's
 * own serializers) or JSON.parse, flattened to one entry per log record. Answers can be scripted
 * (status codes, Retry-After, gRPC codes with RetryInfo, partial success) to test the exporter's retries.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import { decodeLogsRequestProtobuf, encodeLogsResponse, encodeStatusWithRetry } from '../../src/capture/otlp/protobuf.ts';

/** One received log record, flattened. */
export interface ReceivedRecord {
  transport: 'http/protobuf' | 'http/json' | 'grpc';
  traceId: string;
  spanId: string;
  eventName: string;
  /** Attribute values by key, with the AnyValue member that carried each (`stringValue`, `doubleValue`, …). */
  attributes: Record<string, { kind: string; value: unknown }>;
  resource: Record<string, unknown>;
}

/** A scripted answer; the default is success. */
export type ScriptedAnswer =
  | { http: number; retryAfter?: string; body?: string }
  | { grpcCode: number; retryDelaySeconds?: number }
  | { partialRejected: number };

const hex = (v: unknown): string => (typeof v === 'string' ? v : v ? Buffer.from(v as Uint8Array).toString('hex') : '');

function flattenValue(v: Record<string, unknown> | undefined): { kind: string; value: unknown } {
  for (const [kind, value] of Object.entries(v ?? {})) if (value !== undefined && value !== null) return { kind, value };
  return { kind: 'none', value: undefined };
}

function flatten(request: unknown, transport: ReceivedRecord['transport']): ReceivedRecord[] {
  const out: ReceivedRecord[] = [];
  type KV = { key: string; value?: Record<string, unknown> };
  const r = request as { resourceLogs?: Array<{ resource?: { attributes?: KV[] }; scopeLogs?: Array<{ logRecords?: Array<Record<string, unknown>> }> }> };
  for (const rl of r.resourceLogs ?? []) {
    const resource = Object.fromEntries((rl.resource?.attributes ?? []).map((a) => [a.key, flattenValue(a.value).value]));
    for (const sl of rl.scopeLogs ?? []) {
      for (const lr of sl.logRecords ?? []) {
        const attributes = Object.fromEntries(((lr.attributes as KV[] | undefined) ?? []).map((a) => [a.key, flattenValue(a.value)]));
        out.push({ transport, traceId: hex(lr.traceId), spanId: hex(lr.spanId), eventName: String(lr.eventName ?? ''), attributes, resource });
      }
    }
  }
  return out;
}

/** A running receiver. */
export interface OtlpLogsReceiver {
  httpUrl: string;
  grpcUrl: string;
  records: ReceivedRecord[];
  /** Every request body as received (decompressed), to search for what must never be sent. */
  rawBodies: Buffer[];
  /** Requests answered so far (any answer). */
  requests: number;
  /** Times of each request, milliseconds. */
  requestTimes: number[];
  /** Answers for the next requests, in order (then success). */
  script: ScriptedAnswer[];
  close(): Promise<void>;
}

/** Starts the HTTP and gRPC receivers on free loopback ports. */
export async function startOtlpLogsReceiver(): Promise<OtlpLogsReceiver> {
  const state: Omit<OtlpLogsReceiver, 'httpUrl' | 'grpcUrl' | 'close'> = { records: [], rawBodies: [], requests: 0, requestTimes: [], script: [] };
  const http: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.requests++;
      state.requestTimes.push(Date.now());
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      state.rawBodies.push(body);
      const answer = state.script.shift();
      if (answer && 'http' in answer) {
        res.writeHead(answer.http, answer.retryAfter !== undefined ? { 'Retry-After': answer.retryAfter } : {});
        res.end(answer.body ?? '');
        return;
      }
      const json = (req.headers['content-type'] ?? '').startsWith('application/json');
      state.records.push(...flatten(json ? JSON.parse(body.toString('utf8')) : decodeLogsRequestProtobuf(body), json ? 'http/json' : 'http/protobuf'));
      const partial = answer && 'partialRejected' in answer ? { rejected: answer.partialRejected, errorMessage: 'test rejects some' } : undefined;
      if (json) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(partial ? { partialSuccess: { rejectedLogRecords: String(partial.rejected), errorMessage: partial.errorMessage } } : {}));
      } else {
        res.writeHead(200, { 'Content-Type': 'application/x-protobuf' });
        res.end(Buffer.from(encodeLogsResponse(partial)));
      }
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const raw = (b: Buffer) => b;
  const server = new grpc.Server();
  server.addService(
    { Export: { path: '/opentelemetry.proto.collector.logs.v1.LogsService/Export', requestStream: false, responseStream: false, requestSerialize: raw, requestDeserialize: raw, responseSerialize: (r: Uint8Array) => Buffer.from(r), responseDeserialize: raw } },
    {
      Export: (call: grpc.ServerUnaryCall<Buffer, Uint8Array>, callback: grpc.sendUnaryData<Uint8Array>) => {
        state.requests++;
        state.requestTimes.push(Date.now());
        state.rawBodies.push(call.request);
        const answer = state.script.shift();
        if (answer && 'grpcCode' in answer) {
          const metadata = new grpc.Metadata();
          if (answer.retryDelaySeconds !== undefined) metadata.set('grpc-status-details-bin', Buffer.from(encodeStatusWithRetry(answer.grpcCode, 'scripted', answer.retryDelaySeconds)));
          callback({ code: answer.grpcCode, details: 'scripted', metadata });
          return;
        }
        state.records.push(...flatten(decodeLogsRequestProtobuf(call.request), 'grpc'));
        callback(null, encodeLogsResponse(answer && 'partialRejected' in answer ? { rejected: answer.partialRejected, errorMessage: 'test rejects some' } : undefined));
      },
    },
  );
  const grpcPort = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))));
  return Object.assign(state, {
    httpUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}/v1/logs`,
    grpcUrl: `http://127.0.0.1:${grpcPort}`,
    close: async () => {
      server.forceShutdown();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  });
}
