/**
 * A counting proxy in front of one OpenAI-compatible server, so that every tool's LLM calls and tokens
 * are counted the same way, by the same code: each `/chat/completions` and `/completions` request is
 * forwarded as it came and its `usage` (prompt and completion tokens, as the server counted them) is
 * added to the current tool's tally. `/embeddings` are answered here with ragwatch's bundled sentence
 * model (the server serves a chat model only; RAGAS's ResponseRelevancy needs embeddings) and counted
 * apart, never as LLM calls.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SentenceEmbedder } from '../../src/judges/types.ts';

/** One tool's count. */
export interface Tally {
  calls: number;
  failedCalls: number;
  inputTokens: number;
  outputTokens: number;
  embeddingCalls: number;
}

/** A running proxy. */
export interface LlmProxy {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  /** Starts counting for `tool` (a fresh tally) and returns it. */
  count(tool: string): Tally;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Starts the proxy in front of `upstream` (`http://host:port/v1`). */
export async function startLlmProxy(upstream: string, embedder: SentenceEmbedder): Promise<LlmProxy> {
  let tally: Tally = { calls: 0, failedCalls: 0, inputTokens: 0, outputTokens: 0, embeddingCalls: 0 };
  const base = upstream.replace(/\/$/, '');
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').replace(/^\/v1/, '');
    const body = await readBody(req);
    if (req.method === 'POST' && path.startsWith('/embeddings')) {
      tally.embeddingCalls++;
      const input = (JSON.parse(body.toString('utf8')) as { input: string | string[] }).input;
      const texts = Array.isArray(input) ? input.map(String) : [String(input)];
      const vectors = await embedder.embed(texts);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', model: 'ragwatch-bundled-use-lite', data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })), usage: { prompt_tokens: 0, total_tokens: 0 } }));
      return;
    }
    const llm = req.method === 'POST' && (path.startsWith('/chat/completions') || path.startsWith('/completions'));
    const headers: Record<string, string> = { 'content-type': req.headers['content-type'] ?? 'application/json' };
    if (req.headers.authorization) headers.authorization = req.headers.authorization;
    const upstreamRes = await fetch(`${base}${path}`, { method: req.method ?? 'GET', headers, ...(req.method === 'POST' ? { body } : {}), signal: AbortSignal.timeout(30 * 60_000) }).catch(() => undefined);
    if (!upstreamRes) {
      if (llm) tally.failedCalls++;
      res.writeHead(502).end();
      return;
    }
    const text = await upstreamRes.text();
    if (llm) {
      tally.calls++;
      if (!upstreamRes.ok) tally.failedCalls++;
      // Non-streaming answers carry `usage`; a stream carries it in its last data line (when asked for).
      const usageOf = (s: string) => (JSON.parse(s) as { usage?: { prompt_tokens?: number; completion_tokens?: number } }).usage;
      try {
        const usage = text.trimStart().startsWith('data:')
          ? text.split('\n').filter((l) => l.startsWith('data:') && !l.includes('[DONE]')).map((l) => usageOf(l.slice(5))).filter(Boolean).pop()
          : usageOf(text);
        tally.inputTokens += usage?.prompt_tokens ?? 0;
        tally.outputTokens += usage?.completion_tokens ?? 0;
      } catch {
        // not JSON: counted as a call without tokens
      }
    }
    res.writeHead(upstreamRes.status, { 'content-type': upstreamRes.headers.get('content-type') ?? 'application/json' });
    res.end(text);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    count: () => (tally = { calls: 0, failedCalls: 0, inputTokens: 0, outputTokens: 0, embeddingCalls: 0 }),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
