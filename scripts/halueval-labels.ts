/**
 * Writes HaluEval QA as a human-labels file for `ragwatch calibrate` (docs/calibration.md): every row
 * gives two answers to the same question over the same knowledge — the right one labelled grounded
 * (`groundedness: 1`) and the hallucinated one not (`0`).
 *
 *   node scripts/halueval-labels.ts [--file ../shared/data/halueval/qa_one_turn.jsonl] [--limit N] > labels.jsonl
 *
 * Fit and tune on qa_one_turn.jsonl only; qa_multi_turn.jsonl is the held-out check (data README).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Triplet } from '../src/triplet.ts';

const { values } = parseArgs({ options: { file: { type: 'string', default: new URL('../../shared/data/halueval/qa_one_turn.jsonl', import.meta.url).pathname }, limit: { type: 'string' } } });
if (values.file.includes('multi_turn')) process.stderr.write('warning: qa_multi_turn is the held-out set; never fit or tune on it\n');

interface Row { knowledge: string; question: string; right_answer: string; hallucinated_answer: string }
const rows = readFileSync(values.file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row).slice(0, values.limit ? Number(values.limit) : undefined);
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

for (const [i, r] of rows.entries()) {
  for (const [label, kind, answer] of [[1, 'right', r.right_answer], [0, 'hallucinated', r.hallucinated_answer]] as const) {
    const triplet: Triplet = {
      id: `halueval-${i}-${kind}`, traceId: hex(i * 2 + label + 1, 32), spanId: hex(i * 2 + label + 1, 16), service: 'halueval', timestamp: '2026-01-01T00:00:00.000Z',
      query: r.question, sources: [{ id: `knowledge-${i}`, content: r.knowledge }], response: answer, latency: { durationMs: 0 }, convention: 'custom',
    };
    process.stdout.write(`${JSON.stringify({ triplet, labels: { groundedness: label } })}\n`);
  }
}
