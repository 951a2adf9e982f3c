/**
 * Exam generation through the real LLM client against a local OpenAI-compatible server that answers
 * like a model would, one scripted draft per document: every filter drops its draft (and counts it),
 * malformed and failed calls are counted, options are shuffled deterministically with the answer
 * letter following, each kept question gets its Bloom categories and question word, and documents
 * travel as untrusted data.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { generateExam, readDocuments, shuffleOptions } from '../../src/exams/generate.ts';
import { examSchema } from '../../src/exams/types.ts';
import { llmClientOf } from '../../src/probes/judge-match.ts';
import { startFakeOpenAI, type FakeOpenAI, type FakeRequest } from '../fakes/openai-server.ts';

const DRAFTS: Record<string, { question: string; options: string[]; correct: string } | 'malformed' | 'fail'> = {
  alpha: { question: 'Which team runs the Oslo data centre?', options: ['The platform team', 'The sales team', 'The legal team', 'The design team'], correct: 'A' },
  beta: { question: 'According to the document, who founded Acme?', options: ['Ada', 'Grace', 'Linus', 'Ken'], correct: 'A' },
  gamma: { question: 'What colour is the Acme logo?', options: ['Blue', 'blue', 'Red', 'Green'], correct: 'A' },
  delta: { question: 'Which offices does Acme have?', options: ['Oslo', 'Paris', 'Rome', 'All of the above'], correct: 'D' },
  epsilon: { question: 'How long is the refund period?', options: ['30 days from the delivery date', '30 days from delivery date', '7 days', '1 year'], correct: 'A' },
  zeta: { question: 'What is the capital of France?', options: ['Paris', 'Lyon', 'Nice', 'Lille'], correct: 'A' },
  eta: 'malformed',
  theta: { question: 'Which team runs the Oslo data centre?', options: ['The platform team', 'The ops team', 'The QA team', 'The web team'], correct: 'A' },
  iota: 'fail',
  kappa: { question: 'Which database does the billing service use?', options: ['MySQL', 'PostgreSQL with logical replication to the analytics cluster', 'Oracle', 'DB2'], correct: 'A' },
  lambda: { question: 'Compare the two support plans: which one includes phone support?', options: ['Premium', 'Basic', 'Free', 'Trial'], correct: 'A' },
};
const DOCS: Record<string, string> = {
  alpha: 'alpha: The platform team runs the Oslo data centre.',
  beta: 'beta: Acme was founded by Ada.',
  gamma: 'gamma: The Acme logo is blue.',
  delta: 'delta: Acme has offices in Oslo, Paris and Rome.',
  epsilon: 'epsilon: Refunds are possible for 30 days from delivery.',
  zeta: 'zeta: Acme ships to Paris.',
  eta: 'eta: Nothing to see.',
  theta: 'theta: The platform team runs the Oslo data centre, again.',
  iota: 'iota: The endpoint fails on this one.',
  kappa: 'kappa: The billing service uses PostgreSQL with logical replication to the analytics cluster.',
  lambda: 'lambda: The Premium plan includes phone support; the Basic plan does not.',
};

function responder(req: FakeRequest) {
  const user = ((req.body?.messages ?? []) as Array<{ role: string; content: string }>).find((m) => m.role === 'user')!.content;
  const nonce = /untrusted-([0-9a-f]{16})/.exec(user)![1]!;
  const block = (kind: string) => [...user.matchAll(new RegExp(`<untrusted-${nonce} kind="${kind}"[^>]*>\\n([\\s\\S]*?)\\n</untrusted-${nonce}>`, 'g'))].map((m) => m[1]!);
  if (user.includes('write one difficult multiple-choice exam question')) {
    const key = block('document')[0]!.split(':')[0]!;
    const draft = DRAFTS[key]!;
    if (draft === 'fail') return { status: 500, body: { error: { message: 'down' } } };
    if (draft === 'malformed') return { content: 'Question: what? A) x B) y' };
    return { content: JSON.stringify({ call: nonce, ...draft }) };
  }
  // Closed book: the model knows geography, nothing about Acme.
  const options = block('option');
  const paris = options.indexOf('Paris');
  return { content: JSON.stringify({ call: nonce, choice: paris >= 0 ? 'ABCD'[paris] : 'B', confidence: paris >= 0 ? 0.97 : 0.3 }) };
}

describe('exam generate', () => {
  let fake: FakeOpenAI;
  const dir = mkdtempSync(join(tmpdir(), 'ragwatch-exam-docs-'));
  beforeAll(async () => {
    fake = await startFakeOpenAI(responder);
    for (const [k, v] of Object.entries(DOCS)) writeFileSync(join(dir, `${k}.md`), v);
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the good drafts and drops each bad one for its reason', async () => {
    const docs = readDocuments(dir);
    expect(docs.map((d) => d.id)).toContain('alpha.md#0');
    const config = loadConfig({ env: {}, overrides: { judge: { kind: 'llm', baseUrl: fake.baseURL, apiKey: 'k', model: 'exam-model', llm: { maxRetries: 0 } } } });
    const { exam, report } = await generateExam('acme', docs, { client: llmClientOf(config), domain: 'Acme internal docs', concurrency: 1, model: 'exam-model', now: () => 0 });
    expect(report).toMatchObject({ documents: 11, drafted: 9, kept: 2 });
    expect(report.dropped).toEqual({ call_failed: 1, unparsed: 1, not_self_contained: 1, duplicate_options: 1, all_or_none_option: 1, similar_options: 1, distractor_closer_to_document: 1, duplicate_question: 1, answerable_closed_book: 1 });
    expect(examSchema.parse(exam)).toEqual(exam);
    const byText = new Map(exam.items.map((i) => [i.question, i]));
    const alpha = byText.get('Which team runs the Oslo data centre?')!;
    expect(alpha.options[['A', 'B', 'C', 'D'].indexOf(alpha.answer)]).toBe('The platform team');
    expect(alpha.source).toBe('alpha.md#0');
    expect(alpha.questionWord).toBe('what');
    expect(byText.get('Compare the two support plans: which one includes phone support?')!.bloom).toContain('analyzing');
    // Shuffled by the question's hash: over 40 drafts whose answer is always A, every letter is used and the answer follows its option.
    const letters = Array.from({ length: 40 }, (_, i) => {
      const s = shuffleOptions({ question: `Question ${i}?`, options: ['right', 'w1', 'w2', 'w3'], correct: 'A' });
      expect(s.options[['A', 'B', 'C', 'D'].indexOf(s.answer)]).toBe('right');
      expect([...s.options].sort()).toEqual(['right', 'w1', 'w2', 'w3']);
      return s.answer;
    });
    expect(new Set(letters)).toEqual(new Set(['A', 'B', 'C', 'D']));
    // Same drafts, same exam.
    expect((await generateExam('acme', docs, { client: llmClientOf(config), domain: 'Acme internal docs', concurrency: 1, model: 'exam-model', now: () => 0 })).exam).toEqual(exam);
  });
});
