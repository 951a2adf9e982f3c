/**
 * What ragwatch captured from a Python RAG service, compared with what the service reports it did
 * (tests/python/services: each answered turn's question, retrieved documents and answer). Pure: the
 * live runs (tests/integration/python-*.test.ts) and the recorded fixtures (tests/capture/python/)
 * share it, and both compare the capabilities it observes with tests/python/compat.json.
 */
import type { ScoreRecord, Triplet } from '../../../src/triplet.ts';

/** One answered turn as the service printed it (`RAGWATCH-REPORT {json}`). */
export interface TurnReport {
  scenario: 'answer' | 'stream' | 'chat' | 'search';
  turn: number;
  question: string;
  answer: string;
  sources: Array<{ id?: string; text: string }>;
  stream: boolean;
}

/** What ragwatch got out of one combination's spans (a row of the compatibility table). */
export interface Capabilities {
  /** Every triplet's query is the question as asked. */
  query: boolean;
  /** Every triplet's sources are the retrieved documents' text, in the retriever's order. */
  sources: boolean;
  /** Every triplet's response is the answer the service received. */
  response: boolean;
  /** The streamed answer's triplet has a time to first token. */
  ttft: boolean;
  /** The streamed answer's triplet has a time per output token. */
  tpot: boolean;
  /** Both chat turns carry the same conversation id. */
  conversationId: boolean;
  /** The second chat turn carries the first turn (question and answer) as its history. */
  history: boolean;
}

/** The comparison of one service run with its triplets. */
export interface CaptureCheck {
  capabilities: Capabilities;
  /** Each report's triplet, in report order (undefined: none found). */
  matched: Array<Triplet | undefined>;
  /** Triplets no report accounts for (embedding, tool or retriever-only spans taken for answers). */
  phantoms: Triplet[];
  /** Human-readable differences, for the assertion message. */
  problems: string[];
}

const sameTexts = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((t, i) => t === b[i]);

/**
 * Pairs each report with the triplet of the same answer (else the same query) and says what was
 * captured. `firstChunkDelayMs` is the fake LLM's delay before its first streamed chunk: a TTFT below
 * it was not measured from the stream.
 */
export function checkCapture(reports: readonly TurnReport[], triplets: readonly Triplet[], firstChunkDelayMs: number): CaptureCheck {
  const left = [...triplets];
  const problems: string[] = [];
  const take = (pred: (t: Triplet) => boolean) => {
    const i = left.findIndex(pred);
    return i < 0 ? undefined : left.splice(i, 1)[0];
  };
  // A search (the retriever alone, no model call) gives no triplet: whatever would match it stays a phantom.
  const matched = reports.map((r) => (r.scenario === 'search' ? undefined : (take((t) => t.response === r.answer) ?? take((t) => t.query === r.question))));
  const caps: Capabilities = { query: true, sources: true, response: true, ttft: false, tpot: false, conversationId: false, history: false };
  reports.forEach((r, i) => {
    if (r.scenario === 'search') return;
    const t = matched[i];
    const label = `${r.scenario} turn ${r.turn}`;
    if (!t) {
      problems.push(`${label}: no triplet`);
      caps.query = caps.sources = caps.response = false;
      return;
    }
    if (t.query !== r.question) {
      caps.query = false;
      problems.push(`${label}: query ${JSON.stringify(t.query.slice(0, 200))} ≠ ${JSON.stringify(r.question)}`);
    }
    if (t.response !== r.answer) {
      caps.response = false;
      problems.push(`${label}: response ${JSON.stringify(t.response.slice(0, 200))} ≠ ${JSON.stringify(r.answer)}`);
    }
    const got = t.sources.map((s) => s.content.trim());
    const want = r.sources.map((s) => s.text.trim());
    if (!sameTexts(got, want)) {
      caps.sources = false;
      problems.push(`${label}: sources ${JSON.stringify(got.map((s) => s.slice(0, 60)))} ≠ ${JSON.stringify(want.map((s) => s.slice(0, 60)))}`);
    }
  });
  const stream = reports.findIndex((r) => r.stream);
  const streamed = stream >= 0 ? matched[stream] : undefined;
  if (streamed?.latency.ttftMs !== undefined) {
    caps.ttft = streamed.latency.ttftMs >= firstChunkDelayMs * 0.9 && streamed.latency.ttftMs <= streamed.latency.durationMs + 1;
    if (!caps.ttft) problems.push(`stream: TTFT ${streamed.latency.ttftMs} ms outside [${firstChunkDelayMs * 0.9}, ${streamed.latency.durationMs}]`);
  }
  caps.tpot = streamed?.latency.tpotMs !== undefined && streamed.latency.tpotMs > 0;
  const chat = reports.map((r, i) => [r, matched[i]] as const).filter(([r]) => r.scenario === 'chat');
  const [first, second] = [chat.find(([r]) => r.turn === 1), chat.find(([r]) => r.turn === 2)];
  if (first?.[1] && second?.[1]) {
    const [a, b] = [first[1].conversation, second[1].conversation];
    caps.conversationId = a?.id !== undefined && a.id === b?.id;
    const history = b?.history ?? [];
    caps.history = b?.turn === 2 && history.length === 2 && history[0]!.role === 'user' && history[0]!.content === first[0].question && history[1]!.role === 'assistant' && history[1]!.content === first[0].answer;
  }
  for (const p of left) problems.push(`phantom triplet: span ${p.spanId} query ${JSON.stringify(p.query.slice(0, 80))} response ${JSON.stringify(p.response.slice(0, 80))}`);
  return { capabilities: caps, matched, phantoms: left, problems };
}

/** Triplets without a score record, by triplet id (the scored-record check of the live runs). */
export function unscored(triplets: readonly Triplet[], records: readonly ScoreRecord[]): string[] {
  const scored = new Set(records.filter((r) => Object.keys(r.scores).length > 0).map((r) => r.tripletId));
  return triplets.filter((t) => !scored.has(t.id)).map((t) => t.id);
}
