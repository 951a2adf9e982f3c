/**
 * A generation's conversation (DESIGN §18): the conversation id the app exported — never derived
 * from text — and the earlier turns from the generation's input messages, bounded. The id is read
 * from the generation span, then its ancestors, then any span of the request, under the first
 * attribute that holds one:
 *
 * | convention | attribute |
 * |---|---|
 * | OpenInference (`using_session`, LangChain/OpenAI instrumentations) | `session.id` |
 * | OTel GenAI semantic conventions | `gen_ai.conversation.id` |
 * | Langfuse | `langfuse.session.id`, `session.id` |
 * | Traceloop / OpenLLMetry | `traceloop.association.properties.session_id`, `…conversation_id` |
 * | any app | `capture.conversationAttributes` (configured first) |
 *
 * The Vercel AI SDK exports no id: its triplets carry their history as an anonymous conversation.
 * @module
 */
import { str } from './attributes.ts';
import type { CapturedSpan } from './types.ts';

/**
 * The conversation id a collector already pseudonymised (split mode, docs/sampling.md): read first,
 * and passed through as it is (a token under the shared `redaction.hmacKey`).
 */
export const PSEUDONYMOUS_CONVERSATION_ATTRIBUTE = 'ragwatch.conversation.id';

/** Attributes holding a conversation id, in order, after the configured ones. */
export const CONVERSATION_ATTRIBUTES = ['session.id', 'gen_ai.conversation.id', 'langfuse.session.id', 'traceloop.association.properties.session_id', 'traceloop.association.properties.conversation_id'] as const;

/** Bounds of a captured history. */
export interface HistoryBounds {
  /** Earlier messages kept at most (the newest). */
  maxTurns: number;
  /** Characters kept per message. */
  maxChars: number;
}

/** One earlier message of the conversation. */
export interface Turn {
  role: 'user' | 'assistant';
  content: string;
}

/** What {@link conversationOf} found. */
export interface CapturedConversation {
  /** The exported id; absent: anonymous (history only). */
  id?: string;
  /** Where the id came from (`session.id on span ab12…`), for `extract --explain`. */
  idSource?: string;
  /** 1-based: the user messages up to and including the one answered. */
  turn: number;
  /** Earlier user and assistant messages, oldest first, bounded. */
  history: Turn[];
  /** The question as the user typed it (the last user message). */
  typed?: string;
  /** Messages and characters cut by the bounds. */
  cut: { turns: number; chars: number };
}

const LONGEST_ID = 256;

/** The conversation id of `span` from its own attributes, its ancestors', then any span of the request. */
export function conversationIdOf(span: CapturedSpan, spans: readonly CapturedSpan[], byId: ReadonlyMap<string, CapturedSpan>, attributes: readonly string[]): { id: string; source: string } | undefined {
  const keys = [PSEUDONYMOUS_CONVERSATION_ATTRIBUTE, ...attributes, ...CONVERSATION_ATTRIBUTES];
  const on = (s: CapturedSpan) => {
    for (const key of keys) {
      const v = str(s.attributes, key) ?? str(s.resource, key);
      if (v !== undefined && v !== '' && v.length <= LONGEST_ID) return { id: v, source: `${key} on span ${s.spanId.slice(0, 8)} "${s.name}"` };
    }
    return undefined;
  };
  let s: CapturedSpan | undefined = span;
  for (let depth = 0; s && depth < 64; depth++) {
    const found = on(s);
    if (found) return found;
    s = s.parentSpanId ? byId.get(s.parentSpanId) : undefined;
  }
  for (const other of spans) {
    const found = on(other);
    if (found) return found;
  }
  return undefined;
}

/**
 * The conversation of a generation from its input messages (role + text, in order): the earlier user
 * and assistant turns before the last user message (system and tool messages are instructions and
 * context, not turns), the newest `maxTurns` of them, each clipped to `maxChars`; undefined when the
 * generation is a first turn with no id (nothing to say).
 */
export function conversationOf(messages: ReadonlyArray<{ role: string; content: string }> | undefined, id: { id: string; source: string } | undefined, bounds: HistoryBounds): CapturedConversation | undefined {
  const list = messages ?? [];
  let last = -1;
  for (let i = list.length - 1; i >= 0; i--) {
    if (list[i]!.role === 'user') {
      last = i;
      break;
    }
  }
  const earlier: Turn[] = [];
  let users = 0;
  for (let i = 0; i < last; i++) {
    const m = list[i]!;
    if (m.role !== 'user' && m.role !== 'assistant') continue;
    if (m.role === 'user') users++;
    earlier.push({ role: m.role, content: m.content });
  }
  if (earlier.length === 0 && !id) return undefined;
  let chars = 0;
  const kept = earlier.slice(Math.max(0, earlier.length - bounds.maxTurns)).map((t) => {
    if (t.content.length <= bounds.maxChars) return t;
    chars += t.content.length - bounds.maxChars;
    return { role: t.role, content: `${t.content.slice(0, bounds.maxChars)}…` };
  });
  const out: CapturedConversation = { turn: users + 1, history: kept, cut: { turns: earlier.length - kept.length, chars } };
  if (last >= 0) out.typed = list[last]!.content;
  if (id) {
    out.id = id.id;
    out.idSource = id.source;
  }
  return out;
}

/**
 * True when the retriever's input is not the typed question: the app condensed the follow-up into a
 * standalone question. A user message that wraps the question (context, then "Question: …") holds it,
 * so it is not a condensation.
 */
export function isCondensed(typed: string, retrieverQuery: string): boolean {
  const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').replace(/[?.!\s]+$/, '').trim();
  return !norm(typed).includes(norm(retrieverQuery));
}
