/**
 * A local OpenAI-compatible HTTP server that tests script (the only fake ragwatch's tests allow:
 * no judge model can run here). The client code under test talks real HTTP to it.
 *
 * Supports POST /v1/chat/completions (JSON or SSE streaming when the request says `stream: true`),
 * POST /v1/embeddings (every input gets `[1, 0, 0]` unless `options.embed` says otherwise; base64 when the
 * request asks for `encoding_format: 'base64'`, as the real API does), scripted errors (429 +
 * Retry-After, 500), hangs and malformed bodies.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { AddressInfo } from 'node:net';

/** One received request. */
export interface FakeRequest {
  path: string;
  headers: IncomingMessage['headers'];
  /** Parsed JSON body (undefined if not JSON). */
  body: Record<string, unknown> | undefined;
  receivedAtMs: number;
}

/** What the fake answers with. */
export type FakeReply =
  /** A chat completion whose message content is `content` (streamed in chunks when the request streams). */
  | { content: string; promptTokens?: number; completionTokens?: number; firstChunkDelayMs?: number; chunkDelayMs?: number; chunks?: number; model?: string; finishReason?: 'stop' | 'length' }
  /** An arbitrary status/body (errors, malformed JSON as a string body). */
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** An assistant message that calls tools (streamed as one tool-call delta when the request streams). */
  | { toolCalls: Array<{ id: string; name: string; arguments: string }>; promptTokens?: number; completionTokens?: number; model?: string }
  /** Never answer (the client must time out). */
  | { hang: true };

export type Responder = (req: FakeRequest) => FakeReply | Promise<FakeReply>;

/** Options of {@link startFakeOpenAI}. */
export interface FakeOpenAIOptions {
  /** The vector returned for one embeddings input. Default: `[1, 0, 0]` for every input. */
  embed?: (text: string) => number[];
}

/**
 * A deterministic bag-of-words embedding: each lower-cased word hashed (FNV-1a) into one of `dims`
 * buckets, L2-normalised. Texts sharing words get a higher cosine similarity, so a vector store
 * ranks the document that repeats the query's words first.
 */
export function bagOfWordsEmbedding(text: string, dims = 64): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 0x811c9dc5;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
    v[(h >>> 0) % dims]! += 1;
  }
  const norm = Math.hypot(...v);
  return norm === 0 ? v : v.map((x) => x / norm);
}

function embeddingWire(vector: number[], base64: boolean): number[] | string {
  return base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
}

export interface FakeOpenAI {
  /** Base URL including `/v1`, for `OPENAI_BASE_URL` / `new OpenAI({ baseURL })`. */
  baseURL: string;
  requests: FakeRequest[];
  /** Replaces the responder. */
  setResponder(responder: Responder): void;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function chunkText(text: string, n: number): string[] {
  if (n <= 1 || text.length <= 1) return [text];
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

async function reply(req: FakeRequest, res: ServerResponse, answer: FakeReply, hanging: Set<ServerResponse>): Promise<void> {
  if ('hang' in answer) {
    hanging.add(res);
    return;
  }
  if ('status' in answer) {
    const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? { error: { message: `status ${answer.status}` } });
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(body);
    return;
  }
  if ('toolCalls' in answer) {
    replyToolCalls(req, res, answer);
    return;
  }
  const model = answer.model ?? (typeof req.body?.model === 'string' ? req.body.model : 'fake-model');
  const usage = { prompt_tokens: answer.promptTokens ?? 10, completion_tokens: answer.completionTokens ?? 5, total_tokens: (answer.promptTokens ?? 10) + (answer.completionTokens ?? 5) };
  const id = `chatcmpl-${Math.random().toString(36).slice(2)}`;
  const created = Math.floor(Date.now() / 1000);
  if (req.body?.stream === true) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    await sleep(answer.firstChunkDelayMs ?? 0);
    const pieces = chunkText(answer.content, answer.chunks ?? 4);
    for (const [i, piece] of pieces.entries()) {
      if (i > 0 && answer.chunkDelayMs) await sleep(answer.chunkDelayMs);
      const delta = i === 0 ? { role: 'assistant', content: piece } : { content: piece };
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
    }
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage })}\n\n`);
    res.end('data: [DONE]\n\n');
    return;
  }
  await sleep(answer.firstChunkDelayMs ?? 0);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ id, object: 'chat.completion', created, model, choices: [{ index: 0, message: { role: 'assistant', content: answer.content }, finish_reason: answer.finishReason ?? 'stop', logprobs: null }], usage }));
}

function replyToolCalls(req: FakeRequest, res: ServerResponse, answer: Extract<FakeReply, { toolCalls: unknown }>): void {
  const model = answer.model ?? (typeof req.body?.model === 'string' ? req.body.model : 'fake-model');
  const usage = { prompt_tokens: answer.promptTokens ?? 10, completion_tokens: answer.completionTokens ?? 5, total_tokens: (answer.promptTokens ?? 10) + (answer.completionTokens ?? 5) };
  const id = `chatcmpl-${Math.random().toString(36).slice(2)}`;
  const created = Math.floor(Date.now() / 1000);
  const calls = answer.toolCalls.map((c, index) => ({ index, id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  if (req.body?.stream === true) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta: { role: 'assistant', content: null, tool_calls: calls }, finish_reason: null }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage })}\n\n`);
    res.end('data: [DONE]\n\n');
    return;
  }
  const message = { role: 'assistant', content: null, tool_calls: calls.map(({ index: _index, ...c }) => c) };
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ id, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: 'tool_calls', logprobs: null }], usage }));
}

/** Starts the fake on 127.0.0.1 (random port). The default responder answers "ok". */
export async function startFakeOpenAI(responder: Responder = () => ({ content: 'ok' }), options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const embed = options.embed ?? (() => [1, 0, 0]);
  let current = responder;
  const requests: FakeRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown> | undefined;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        body = undefined;
      }
      const fr: FakeRequest = { path: req.url ?? '', headers: req.headers, body, receivedAtMs: Date.now() };
      requests.push(fr);
      if (fr.path.endsWith('/embeddings')) {
        const input = body?.input;
        const texts = Array.isArray(input) ? input : [input];
        const base64 = body?.encoding_format === 'base64';
        const data = texts.map((text, index) => ({ object: 'embedding', index, embedding: embeddingWire(embed(String(text)), base64) }));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', model: 'fake-embed', data, usage: { prompt_tokens: 1, total_tokens: 1 } }));
        return;
      }
      Promise.resolve(current(fr))
        .then((answer) => reply(fr, res, answer, hanging))
        .catch((err: unknown) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: String(err) } }));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    setResponder(r) {
      current = r;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * One fake server for the calling test file (vitest hooks): started before its tests, closed after
 * them; before each test its request log is cleared and `reset` runs (e.g. to restore a responder).
 * The returned object delegates to the running server.
 */
export function useFakeOpenAI(reset: (fake: FakeOpenAI) => void = () => undefined): FakeOpenAI {
  let server: FakeOpenAI | undefined;
  const running = () => {
    if (!server) throw new Error('useFakeOpenAI: the server is not running (outside the test file\'s tests?)');
    return server;
  };
  beforeAll(async () => {
    server = await startFakeOpenAI();
  });
  afterAll(() => server?.close());
  beforeEach(() => {
    running().requests.length = 0;
    reset(running());
  });
  return {
    get baseURL() {
      return running().baseURL;
    },
    get requests() {
      return running().requests;
    },
    setResponder: (responder) => running().setResponder(responder),
    close: () => running().close(),
  };
}
