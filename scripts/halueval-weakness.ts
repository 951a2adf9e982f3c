/**
 * A HaluEval file with a planted weakness, for `ragwatch weaknesses` (docs/weaknesses.md): every
 * question about a film or a movie is answered with HaluEval's hallucinated answer, every other one
 * with the right answer; the knowledge passage is the source.
 *
 *   node scripts/halueval-weakness.ts [--file ../shared/data/halueval/qa_one_turn.jsonl] > triplets.jsonl
 *
 * Only the development file: never tune on qa_multi_turn.jsonl (data README).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Triplet } from '../src/triplet.ts';

const { values } = parseArgs({ options: { file: { type: 'string', default: new URL('../../shared/data/halueval/qa_one_turn.jsonl', import.meta.url).pathname } } });
if (values.file.includes('multi_turn')) process.stderr.write('warning: qa_multi_turn is the held-out set; never tune on it\n');
interface Row { knowledge: string; question: string; right_answer: string; hallucinated_answer: string }
const rows = readFileSync(values.file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row);
let planted = 0;
for (const [i, r] of rows.entries()) {
  const weak = /\b(film|movie)s?\b/i.test(r.question);
  if (weak) planted++;
  const t: Triplet = {
    id: `halueval-${i}`, traceId: (i + 1).toString(16).padStart(32, '0'), spanId: (i + 1).toString(16).padStart(16, '0'), service: 'halueval', timestamp: '2026-01-01T00:00:00.000Z',
    query: r.question, sources: [{ id: `knowledge-${i}`, content: r.knowledge }], response: weak ? r.hallucinated_answer : r.right_answer, latency: { durationMs: 0 }, convention: 'custom',
  };
  process.stdout.write(`${JSON.stringify(t)}\n`);
}
process.stderr.write(`${rows.length} answers, ${planted} about films answered with the hallucinated answer\n`);
