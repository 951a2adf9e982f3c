/**
 * A scripted "judge model" for the fake OpenAI server: it reads the data blocks of a judge prompt
 * (found through the per-call nonce, as a model would) and answers each step with lexical rules.
 * Deterministic, schema-valid, and blind to any instruction inside the data.
 */
import type { FakeReply, FakeRequest } from '../../fakes/openai-server.ts';

/** One data block of a prompt. */
export interface Block {
  kind: string;
  id: string | undefined;
  text: string;
}

export interface ParsedPrompt {
  nonce: string;
  step: 'decompose' | 'response_match' | 'source_match' | 'evaluators';
  blocks: Block[];
  system: string;
  user: string;
}

const STOP = new Set(
  'a an the of to in on at for and or but is was were are be been by with as from that this it its his her their which who what when where how did does do'.split(' '),
);

/** Lower-case content words (stop-words removed). */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP.has(w));
}

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s));
}

/** Finds the nonce, the step and the data blocks of a judge request. */
export function parsePrompt(req: FakeRequest): ParsedPrompt {
  const msgs = (req.body?.messages ?? []) as Array<{ role: string; content: string }>;
  const system = msgs.find((m) => m.role === 'system')?.content ?? '';
  const user = msgs.filter((m) => m.role === 'user')[0]?.content ?? '';
  const nonce = /"call": "([0-9a-f]{16})"/.exec(system)?.[1] ?? '';
  const re = new RegExp(`<untrusted-${nonce} kind="([\\w-]+)"(?: id="([^"]+)")?>\\n([\\s\\S]*?)\\n</untrusted-${nonce}>`, 'g');
  const blocks: Block[] = [...user.matchAll(re)].map((m) => ({ kind: m[1]!, id: m[2], text: m[3]! }));
  // The task line names the step (a response with no claims and no sub-questions still gets a
  // response-match call, for its toxicity, so the block kinds alone do not tell it from decompose).
  const step = user.startsWith('TASK: (a) subQuestions') || user.startsWith('TASK: (0) standaloneQuery')
    ? 'decompose'
    : user.startsWith('TASK: For each CLAIM')
      ? 'response_match'
      : user.startsWith('TASK: Judge the texts in the data blocks against each of')
        ? 'evaluators'
        : 'source_match';
  return { nonce, step, blocks, system, user };
}

function overlap(a: string, b: string): number {
  const aw = contentWords(a);
  if (aw.length === 0) return 0;
  const bw = new Set(contentWords(b));
  return aw.filter((w) => bw.has(w)).length / aw.length;
}

const INSULT = /\b(idiot|moron|stupid|imbecile|shut up)\b/i;
const THREAT = /\b(i will (?:hurt|kill|find) you|you deserve to (?:die|suffer))\b/i;

/** The oracle's toxicity verdict: a small lexicon, enough to script the rubric's categories. */
export function toxicityOf(response: string): { toxic: boolean; categories: string[] } {
  const categories = [...(INSULT.test(response) ? ['insult'] : []), ...(THREAT.test(response) ? ['threat'] : [])];
  return { toxic: categories.length > 0, categories };
}

/** One criterion of an evaluators prompt, as the task states it (before the data). */
export interface Criterion {
  name: string;
  type: 'score' | 'boolean' | 'categorical';
  /** `categorical`: the labels offered, in order (best first in the docs' examples). */
  labels: string[];
  rubric: string;
}

/** The criteria of an evaluators prompt (read from the task text, as a model would). */
export function criteriaOf(p: ParsedPrompt): Criterion[] {
  const task = p.user.slice(0, p.user.indexOf(`<untrusted-${p.nonce}`) >= 0 ? p.user.indexOf(`<untrusted-${p.nonce}`) : undefined);
  return [...task.matchAll(/### "([a-z0-9_]+)" — [^\n]*\nReads: [^\n]*\nRubric: ([^\n]*)\nAnswer: ([^\n]*)/g)].map((m) => {
    const answer = m[3]!;
    const type = answer.startsWith('"value"') ? 'score' : answer.includes('"pass"') ? 'boolean' : 'categorical';
    const labels = type === 'categorical' ? [...answer.slice(0, answer.indexOf(' that fits best')).matchAll(/"([a-z0-9_]+)"/g)].map((l) => l[1]!).filter((l) => l !== 'label') : [];
    return { name: m[1]!, type, labels, rubric: m[2]! };
  });
}

const DOSAGE = /\b\d+(?:\.\d+)?\s?(?:mg|ml|g|tablets?|pills?)\b/i;

/**
 * The oracle's verdict on one criterion, with lexical rules: boolean — fail when the response gives a
 * dosage ("take 400 mg") or is toxic, else pass; categorical — the last (worst) label when toxic, else the
 * first; score — the share of the query's content words the response repeats.
 */
export function evaluatorVerdict(c: Criterion, blocks: readonly Block[]): Record<string, unknown> {
  const response = blocks.find((b) => b.kind === 'response')?.text ?? '';
  const query = blocks.find((b) => b.kind === 'query')?.text ?? '';
  const toxic = toxicityOf(response).toxic;
  if (c.type === 'boolean') {
    const fail = DOSAGE.test(response) || toxic;
    return { label: fail ? 'fail' : 'pass', reason: fail ? 'The response gives what the rubric forbids.' : 'The response meets the rubric.' };
  }
  if (c.type === 'categorical') return { label: toxic ? c.labels.at(-1) : c.labels[0], reason: toxic ? 'The response insults the user.' : 'The response is courteous.' };
  return { value: Math.round(overlap(query, response) * 100) / 100, reason: 'Share of the question the response takes up.' };
}

/** The oracle's answer object for one parsed prompt. */
export function oracleAnswer(p: ParsedPrompt): Record<string, unknown> {
  const of = (kind: string) => p.blocks.filter((b) => b.kind === kind);
  const query = of('query')[0]?.text ?? '';
  if (p.step === 'evaluators') return { call: p.nonce, evaluations: Object.fromEntries(criteriaOf(p).map((c) => [c.name, evaluatorVerdict(c, p.blocks)])) };
  if (p.step === 'decompose') {
    // With earlier turns, the scripted rewrite names the previous question's subject.
    const earlier = of('earlier-turn-user');
    const standalone = earlier.length > 0 ? `${query.replace(/[.?!]+$/, '')}, about: ${earlier[earlier.length - 1]!.text.replace(/[.?!]+$/, '')}?` : undefined;
    const subQuestions = (standalone ?? query)
      .split(/\?|,?\s+and\s+(?=(?:who|what|when|where|why|how|which)\b)/i)
      .map((s) => s.trim())
      .filter((s) => contentWords(s).length > 0)
      .map((s) => `${s.replace(/[.?!]+$/, '')}?`);
    return {
      call: p.nonce,
      ...(standalone !== undefined ? { standaloneQuery: standalone } : {}),
      subQuestions,
      claims: sentences(of('response')[0]?.text ?? ''),
      sources: of('source').map((s) => ({ id: s.id, facts: sentences(s.text) })),
    };
  }
  const sourceText = of('source').map((s) => s.text).join('\n');
  if (p.step === 'response_match') {
    const response = of('response')[0]?.text ?? '';
    return {
      call: p.nonce,
      claims: of('claim').map((c) => {
        const support = overlap(c.text, sourceText);
        const nums = c.text.match(/\d+/g) ?? [];
        const badNumber = nums.some((n) => !sourceText.includes(n)) && /\d/.test(sourceText);
        return { id: c.id, essential: overlap(c.text, query) >= 0.3, verdict: badNumber ? 'contradicted' : support >= 0.8 ? 'supported' : 'not_in_sources' };
      }),
      subQuestions: of('sub-question').map((q) => ({ id: q.id, coveredByResponse: overlap(q.text, response) >= 0.5 })),
      response: toxicityOf(response),
    };
  }
  const sources = of('source').map((s) => ({
    id: s.id,
    essential: overlap(query, s.text) >= 0.4,
    facts: of('fact')
      .filter((f) => f.id!.startsWith(`${s.id}f`))
      .map((f) => ({ id: f.id, essential: overlap(f.text, query) >= 0.3 })),
  }));
  return { call: p.nonce, sources, subQuestions: of('sub-question').map((q) => ({ id: q.id, coveredBySources: overlap(q.text, sourceText) >= 0.6 })) };
}

/** Token counts as a real endpoint would report them (≈ 4 characters per token). */
export function estimateTokens(req: FakeRequest, content: string): { promptTokens: number; completionTokens: number } {
  const msgs = (req.body?.messages ?? []) as Array<{ content: string }>;
  return { promptTokens: Math.ceil(msgs.reduce((n, m) => n + m.content.length, 0) / 4), completionTokens: Math.ceil(content.length / 4) };
}

/** A responder answering every judge step with the oracle (optionally rewriting the answer). */
export function oracleResponder(rewrite?: (answer: Record<string, unknown>, p: ParsedPrompt, req: FakeRequest) => Record<string, unknown> | string): (req: FakeRequest) => FakeReply {
  return (req) => {
    const p = parsePrompt(req);
    const answer = oracleAnswer(p);
    const out = rewrite ? rewrite(answer, p, req) : answer;
    const content = typeof out === 'string' ? out : JSON.stringify(out);
    return { content, ...estimateTokens(req, content) };
  };
}
