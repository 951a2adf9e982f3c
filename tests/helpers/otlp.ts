/** OTLP/JSON RAG trace builders shared by tests and the demo (scripts/lib/otlp-trace.ts). */
export { CLOCK_TOWER, hexId, openInferenceTrace } from '../../scripts/lib/otlp-trace.ts';
export type { RagRequest } from '../../scripts/lib/otlp-trace.ts';

/** Attempts of {@link postOtlp} before it gives up on 503/429. */
const OTLP_ATTEMPTS = 8;

/**
 * POSTs an OTLP/HTTP body the way exporters do (OTLP spec, "Retryable response codes"): 429 and 503
 * are retried with exponential backoff, honouring `Retry-After` (capped at 2 s here), so ragwatch's
 * load shedding on a loaded machine delays a test instead of failing it. Resolves with the final
 * response; any other status is returned at once for the caller to check.
 */
export async function postOtlp(url: string, body: string | Uint8Array, contentType = 'application/json', headers: Record<string, string> = {}): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body });
    if ((res.status !== 503 && res.status !== 429) || attempt === OTLP_ATTEMPTS) return res;
    await res.arrayBuffer();
    const after = Number(res.headers.get('retry-after'));
    const backoffMs = Math.min(2_000, Number.isFinite(after) && after > 0 ? after * 1000 : 50 * 2 ** attempt) * (0.5 + Math.random() / 2);
    await new Promise((r) => setTimeout(r, backoffMs));
  }
}
