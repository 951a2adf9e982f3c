/**
 * Helpers to read typed values out of span attributes, tolerant of the shapes instrumentations
 * really emit (numbers as strings, JSON-encoded structures).
 * @module
 */
import type { AttrValue, Attributes } from './types.ts';

/** A string attribute, or undefined (numbers/booleans are stringified). */
export function str(attrs: Attributes, key: string): string | undefined {
  const v = attrs[key];
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** A finite number attribute (numeric strings accepted), or undefined. */
export function num(attrs: Attributes, key: string): number | undefined {
  const v = attrs[key];
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** First defined string among keys (a priority chain). */
export function firstStr(attrs: Attributes, keys: readonly string[]): string | undefined {
  for (const k of keys) {
    const v = str(attrs, k);
    if (v !== undefined && v !== '') return v;
  }
  return undefined;
}

/** First defined number among keys (a priority chain). */
export function firstNum(attrs: Attributes, keys: readonly string[]): number | undefined {
  for (const k of keys) {
    const v = num(attrs, k);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** Parses JSON without throwing; returns undefined for non-JSON text. */
export function tryJson(text: string): AttrValue | undefined {
  const t = text.trimStart();
  if (!(t.startsWith('{') || t.startsWith('['))) return undefined;
  try {
    return JSON.parse(text) as AttrValue;
  } catch {
    return undefined;
  }
}

type IndexedEntry = Record<string, AttrValue>;

const NO_ENTRIES: readonly IndexedEntry[] = Object.freeze([]);

/** Where a key's index segment ends, with its index and suffix: parsed once per distinct key. */
interface IndexedKey {
  /** The key before its first index segment (`''` when the key has none). */
  prefix: string;
  index: number;
  suffix: string;
}

const NOT_INDEXED: IndexedKey = { prefix: '', index: 0, suffix: '' };
// Instrumentations write the same few hundred keys over and over; the cache is cleared, not
// evicted, when a key explosion fills it.
const KEY_CACHE_MAX = 10_000;
const keyCache = new Map<string, IndexedKey>();

/** Parses the first index segment (`.<1–9 digits>.`) of `key`. */
function parseIndexedKey(key: string): IndexedKey {
  for (let dot = key.indexOf('.'); dot >= 0; dot = key.indexOf('.', dot + 1)) {
    let i = dot + 1;
    let index = 0;
    for (; i < key.length; i++) {
      const c = key.charCodeAt(i);
      if (c < 48 || c > 57) break;
      index = index * 10 + (c - 48);
    }
    const digits = i - dot - 1;
    if (digits > 0 && digits <= 9 && key.charCodeAt(i) === 46 /* . */) return { prefix: key.slice(0, dot), index, suffix: key.slice(i + 1) };
  }
  return NOT_INDEXED;
}

function indexedKey(key: string): IndexedKey {
  let parsed = keyCache.get(key);
  if (parsed === undefined) {
    parsed = parseIndexedKey(key);
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear();
    keyCache.set(key, parsed);
  }
  return parsed;
}

/** Adds `value` under `suffix` to entry `index` of `list` (created on demand); returns the entries added. */
function addIndexed(list: IndexedEntry[], index: number, suffix: string, value: AttrValue): number {
  const entry = list[index];
  if (entry !== undefined) {
    entry[suffix] = value;
    return 0;
  }
  const created: IndexedEntry = {};
  created[suffix] = value;
  list[index] = created;
  return 1;
}

/** The collected lists without their holes (sparse indexes keep their order). */
function compact(list: IndexedEntry[] | undefined, entries: number): readonly IndexedEntry[] {
  if (list === undefined) return NO_ENTRIES;
  // Object.values visits only the entries present (a filter would walk up to index 999,999,999).
  return entries === list.length ? list : Object.values(list);
}

/**
 * Collects flattened indexed attributes `<prefix>.<i>.<suffix>` into `{ suffix: value }` maps
 * ordered by index (OpenInference / Traceloop flattening); sparse indexes keep their order, holes
 * are dropped. `prefix` must not itself contain an index segment. Hot on the capture path: one
 * pass over the keys, each parsed once per process, nothing built for keys of other prefixes.
 */
export function indexed(attrs: Attributes, prefix: string): readonly IndexedEntry[] {
  return indexedMany(attrs, [prefix])[0]!;
}

/** {@link indexed} for several prefixes in one pass over the keys; the lists in `prefixes` order. */
export function indexedMany(attrs: Attributes, prefixes: readonly string[]): Array<readonly IndexedEntry[]> {
  const lists: Array<IndexedEntry[] | undefined> = [];
  const entries: number[] = [];
  for (let i = 0; i < prefixes.length; i++) {
    lists.push(undefined);
    entries.push(0);
  }
  for (const key in attrs) {
    // One cached lookup per key (property names are interned, their hash is known) instead of
    // string comparisons per key and prefix.
    const k = indexedKey(key);
    if (k === NOT_INDEXED) continue;
    const i = prefixes.indexOf(k.prefix);
    if (i < 0) continue;
    const value = attrs[key];
    if (value !== undefined) entries[i]! += addIndexed((lists[i] ??= []), k.index, k.suffix, value);
  }
  const out: Array<readonly IndexedEntry[]> = [];
  for (let i = 0; i < prefixes.length; i++) out.push(compact(lists[i], entries[i]!));
  return out;
}

/** Flattens a JSON-ish metadata value into a string/number/boolean record (nested values JSON-encoded). */
export function flatMetadata(value: AttrValue | undefined): Record<string, string | number | boolean> | undefined {
  const obj = typeof value === 'string' ? tryJson(value) : value;
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return undefined;
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) out[k] = v;
    else if (v !== null && v !== undefined) out[k] = JSON.stringify(v);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A JSON-ish attribute value: structured values as they are, JSON strings parsed, other strings as text. */
export function jsonOf(value: AttrValue | undefined): AttrValue | undefined {
  return typeof value === 'string' ? (tryJson(value) ?? value) : value;
}

type Obj = { [key: string]: AttrValue };

/** The value as a plain object, or undefined. */
export function asObject(value: AttrValue | undefined): Obj | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

/** Reads a dotted path (`node.text`) out of a JSON-ish object. */
export function pathOf(value: AttrValue | undefined, path: string): AttrValue | undefined {
  let cur: AttrValue | undefined = value;
  for (const key of path.split('.')) {
    const obj = asObject(cur);
    if (!obj) return undefined;
    cur = obj[key];
  }
  return cur;
}

function firstPath(value: AttrValue | undefined, paths: readonly string[]): AttrValue | undefined {
  for (const p of paths) {
    const v = pathOf(value, p);
    if (v !== undefined && v !== null && v !== '') return v;
  }
  return undefined;
}

const CONTENT_PATHS = ['content', 'pageContent', 'page_content', 'text', 'document', 'chunk', 'node.text', 'node.content', 'metadata.content'];
const ID_PATHS = ['id', 'doc_id', 'document_id', 'documentId', 'node.id_', 'node.id', 'metadata.id', 'metadata.doc_id', 'metadata.source'];
const SCORE_PATHS = ['score', 'relevance_score', 'relevanceScore', 'similarity', 'metadata.score', 'metadata.relevance_score'];
const LIST_KEYS = ['documents', 'docs', 'results', 'nodes', 'sourceNodes', 'source_nodes', 'chunks', 'matches', 'context', 'sources'];

/** One retrieved document read out of a JSON-ish value; undefined without text content. */
export function documentOf(value: AttrValue | undefined): { id?: string; content: string; score?: number; metadata?: Record<string, string | number | boolean> } | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : { content: value };
  const content = firstPath(value, CONTENT_PATHS);
  if (typeof content !== 'string' || content.trim() === '') return undefined;
  const doc: { id?: string; content: string; score?: number; metadata?: Record<string, string | number | boolean> } = { content };
  const id = firstPath(value, ID_PATHS);
  if (typeof id === 'string' || typeof id === 'number') doc.id = String(id);
  const score = firstPath(value, SCORE_PATHS);
  const scoreNum = typeof score === 'number' ? score : typeof score === 'string' ? Number(score) : NaN;
  if (Number.isFinite(scoreNum)) doc.score = scoreNum;
  const metadata = flatMetadata(pathOf(value, 'metadata'));
  if (metadata) doc.metadata = metadata;
  return doc;
}

/**
 * Documents out of a retriever/tool output: an array of documents (objects or strings), or an
 * object holding such an array under a well-known key (`documents`, `nodes`, `results`, …).
 * A bare string is not a document list (callers decide whether text is one source).
 */
export function documentsOf(value: AttrValue | undefined): Array<NonNullable<ReturnType<typeof documentOf>>> {
  const parsed = jsonOf(value);
  let list: AttrValue[] | undefined = Array.isArray(parsed) ? parsed : undefined;
  if (!list) {
    const obj = asObject(parsed);
    for (const k of LIST_KEYS) {
      const v = obj?.[k];
      if (Array.isArray(v)) {
        list = v;
        break;
      }
    }
  }
  if (!list) return [];
  return list.map(documentOf).filter((d): d is NonNullable<typeof d> => d !== undefined);
}

/** A chat message reduced to its role and text. */
export interface ChatText {
  role: string;
  content: string;
}

function partText(part: AttrValue): string | undefined {
  if (typeof part === 'string') return part;
  const o = asObject(part);
  if (!o || (o['type'] !== undefined && o['type'] !== 'text')) return undefined;
  const t = o['text'] ?? o['content'];
  return typeof t === 'string' ? t : undefined;
}

/** Text of message content: a string, OpenAI-style parts (`{type:'text', text}`) or GenAI parts (`{type:'text', content}`). */
export function contentText(content: AttrValue | undefined): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.map(partText).filter((t): t is string => t !== undefined);
  return texts.length > 0 ? texts.join('') : undefined;
}

/** Messages out of a JSON-ish list of `{role, content|parts}` (OpenAI, GenAI and AI SDK shapes). */
export function chatTexts(value: AttrValue | undefined): ChatText[] {
  const parsed = jsonOf(value);
  const list = Array.isArray(parsed) ? parsed : asObject(parsed)?.['messages'];
  if (!Array.isArray(list)) return [];
  const out: ChatText[] = [];
  for (const m of list) {
    const obj = asObject(m);
    if (!obj) continue;
    const role = typeof obj['role'] === 'string' ? obj['role'] : undefined;
    const text = contentText(obj['parts']) ?? contentText(obj['content']);
    if (role !== undefined && text !== undefined) out.push({ role, content: text });
  }
  return out;
}

/**
 * Why a messages attribute that is present gave no message (for `extract --explain`): not JSON, not a
 * list, or no item with a role and text. Undefined when absent or readable.
 */
export function unreadableMessages(key: string, value: AttrValue | undefined): string | undefined {
  if (value === undefined || chatTexts(value).length > 0) return undefined;
  const parsed = jsonOf(value);
  if (typeof parsed === 'string') return `${key} is not JSON`;
  const list = Array.isArray(parsed) ? parsed : asObject(parsed)?.['messages'];
  if (!Array.isArray(list)) return `${key} is not a list of messages`;
  return list.length === 0 ? undefined : `${key} has no message with a role and text`;
}

/** Text of the last message with the given role. */
export function lastOfRole(messages: readonly ChatText[], role: string): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === role) return messages[i]!.content;
  return undefined;
}
