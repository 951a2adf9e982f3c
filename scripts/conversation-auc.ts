/**
 * Judging follow-ups in context (issue 33): does the history let the embedded judge's query-dependent
 * metrics separate a right from an off-topic follow-up? Follow-up turns are built from HaluEval QA
 * (`qa_one_turn.jsonl`, the tuning set): turn 1 is a row's question with its right answer; turn 2 is a
 * follow-up that names nothing ("Can you tell me more about that?", …, chosen by row). On-topic: the
 * row's knowledge as sources and the row's right answer as the reply. Off-topic: another row's
 * knowledge and answer. Each pair is scored twice, as a first turn (no history: the follow-up alone)
 * and with its history (the embedded judge's rule: previous user message + follow-up). ROC-AUC of
 * context relevancy, answer relevancy and completeness, on-topic vs off-topic.
 *
 *   node scripts/conversation-auc.ts [--limit N]   (default 150 rows; prints a JSON table)
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { EmbeddedJudge } from '../src/judges/embedded/embedded-judge.ts';
import type { Conversation, SampledTriplet } from '../src/triplet.ts';

const { values } = parseArgs({ options: { limit: { type: 'string', default: '150' } } });
interface Row { knowledge: string; question: string; right_answer: string }
const file = new URL('../../shared/data/halueval/qa_one_turn.jsonl', import.meta.url).pathname;
const rows = readFileSync(file, 'utf8').trim().split('\n').slice(0, Number(values.limit)).map((l) => JSON.parse(l) as Row);

/** Follow-ups that carry no subject of their own. */
const FOLLOW_UPS = ['Can you tell me more about that?', 'And why is that?', 'Where does that come from?', 'Is that right? Tell me more.', 'What else should I know about it?'];

function auc(pos: number[], neg: number[]): number | null {
  if (pos.length === 0 || neg.length === 0) return null;
  let wins = 0;
  for (const p of pos) for (const n of neg) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return wins / (pos.length * neg.length);
}

const judge = new EmbeddedJudge();
await judge.init();
const METRICS = ['context_relevancy', 'answer_relevancy', 'completeness'] as const;
const scores = { without: { on: new Map<string, number[]>(), off: new Map<string, number[]>() }, with: { on: new Map<string, number[]>(), off: new Map<string, number[]>() } };
for (let i = 0; i < rows.length; i++) {
  const row = rows[i]!;
  const other = rows[(i + Math.floor(rows.length / 2)) % rows.length]!;
  const followUp = FOLLOW_UPS[i % FOLLOW_UPS.length]!;
  const conversation: Conversation = { id: `c${i}`, turn: 2, history: [{ role: 'user', content: row.question }, { role: 'assistant', content: row.right_answer }] };
  for (const [kind, knowledge, answer] of [['on', row.knowledge, row.right_answer], ['off', other.knowledge, other.right_answer]] as const) {
    for (const mode of ['without', 'with'] as const) {
      const t: SampledTriplet = {
        id: `f${i}${kind}${mode}`, traceId: `f${i}`, spanId: 's', service: 'halueval', timestamp: new Date(0).toISOString(), query: followUp,
        sources: [{ content: knowledge }], response: answer, latency: { durationMs: 0 }, convention: 'custom', sampling: { weight: 1, stratum: 'all', rule: 'all' },
        ...(mode === 'with' ? { conversation } : {}),
      };
      const r = await judge.score(t);
      if (!r.ok) continue;
      for (const m of METRICS) {
        const v = r.scores[m];
        if (v === undefined) continue;
        const list = scores[mode][kind].get(m) ?? [];
        list.push(v);
        scores[mode][kind].set(m, list);
      }
    }
  }
}
await judge.shutdown();
const table = METRICS.map((m) => ({
  metric: m,
  aucWithoutHistory: auc(scores.without.on.get(m) ?? [], scores.without.off.get(m) ?? []),
  aucWithHistory: auc(scores.with.on.get(m) ?? [], scores.with.off.get(m) ?? []),
}));
process.stdout.write(`${JSON.stringify({ rows: rows.length, followUps: FOLLOW_UPS.length, table }, null, 1)}\n`);
