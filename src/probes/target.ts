/**
 * Asks the RAG service one probe question over HTTP, as the suite's `target` says: JSON body
 * template (or the query in a GET URL), headers, a timeout, a fresh sampled W3C `traceparent` and
 * `baggage: ragwatch.probe=<suite>` (so the service's own trace is captured with origin=probe), and
 * the answer (and sources) read at their dot paths. Every failure is an `error` outcome with a reason
 * — the service's fault, never a wrong answer.
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { ProbeSuite } from './suite.ts';
import { probeTraceId } from './trace-id.ts';

/** A source the service returned with its answer. */
export interface ProbeSource {
  id?: string;
  content: string;
}

/** The service's reply to one probe. */
export type TargetReply =
  | { ok: true; answer: string; sources: ProbeSource[] | undefined; traceId: string; durationMs: number }
  | { ok: false; reason: 'timeout' | 'http_status' | 'network' | 'no_answer' | 'bad_json'; detail: string; traceId: string; durationMs: number };

/** Largest response body read, bytes. */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** The value at a dot path (`data.answer`, `choices.0.text`). */
export function atPath(value: unknown, path: string): unknown {
  let v = value;
  for (const part of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/** Replaces every `{{query}}` in strings of a JSON template (the value is inserted as a string: JSON-escaped on stringify). */
function fillTemplate(template: unknown, query: string): unknown {
  if (typeof template === 'string') return template.split('{{query}}').join(query);
  if (Array.isArray(template)) return template.map((t) => fillTemplate(t, query));
  if (template !== null && typeof template === 'object') return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fillTemplate(v, query)]));
  return template;
}

function sourcesOf(value: unknown): ProbeSource[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.flatMap((s): ProbeSource[] => {
    if (typeof s === 'string') return [{ content: s }];
    if (s !== null && typeof s === 'object' && typeof (s as { content?: unknown }).content === 'string') {
      const id = (s as { id?: unknown }).id;
      return [{ content: (s as { content: string }).content, ...(id !== undefined ? { id: String(id) } : {}) }];
    }
    return [];
  });
}

/** Asks one question under `traceId` (a fresh probe trace id by default). Never throws. */
export async function askTarget(target: ProbeSuite['target'], suite: string, query: string, traceId: string = probeTraceId(), signal?: AbortSignal): Promise<TargetReply> {
  // Marked as a probe: its captured triplet is always sampled and never mixes with production series.
  const headers: Record<string, string> = { ...target.headers, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`, baggage: `ragwatch.probe=${encodeURIComponent(suite)}` };
  const started = performance.now();
  const fail = (reason: Extract<TargetReply, { ok: false }>['reason'], detail: string): TargetReply => ({ ok: false, reason, detail, traceId, durationMs: performance.now() - started });
  let res: Response;
  try {
    const init: RequestInit = { method: target.method, headers, signal: signal ? AbortSignal.any([AbortSignal.timeout(target.timeoutMs), signal]) : AbortSignal.timeout(target.timeoutMs) };
    let url = target.url;
    if (target.method === 'GET') url = url.split('{{query}}').join(encodeURIComponent(query));
    else {
      init.body = JSON.stringify(fillTemplate(target.body, query));
      headers['content-type'] = 'application/json';
    }
    res = await fetch(url, init);
  } catch (err) {
    const name = (err as Error).name;
    return name === 'TimeoutError' || name === 'AbortError' ? fail('timeout', `no answer within ${target.timeoutMs} ms`) : fail('network', (err as Error).message);
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    return fail((err as Error).name === 'TimeoutError' ? 'timeout' : 'network', (err as Error).message);
  }
  if (!res.ok) return fail('http_status', `HTTP ${res.status}`);
  if (text.length > MAX_RESPONSE_BYTES) return fail('bad_json', `response over ${MAX_RESPONSE_BYTES} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return fail('bad_json', 'the response is not JSON');
  }
  const answer = atPath(json, target.answerPath);
  if (typeof answer !== 'string') return fail('no_answer', `no string at answerPath "${target.answerPath}"`);
  return { ok: true, answer, sources: target.sourcesPath ? sourcesOf(atPath(json, target.sourcesPath)) : undefined, traceId, durationMs: performance.now() - started };
}
