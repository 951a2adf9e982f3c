/**
 * Scores HaluEval QA's development set (`qa_one_turn.jsonl`) once with the default scoring path —
 * the embedded judge and the PII check, as `ragwatch start` runs them — and writes the page-severity
 * scores of every right and every hallucinated answer to `tests/fixtures/halueval-embedded-scores.json`.
 * The alert simulations (tests/change, tests/slices, scripts/alert-detection.ts) resample these real
 * scores instead of a constant: only about half of the hallucinated answers score at or below the
 * embedded judge's 0.8 threshold.
 *
 *   ./node_modules/.bin/node scripts/halueval-scores.ts
 *
 * Tune only on this file's set; never on qa_multi_turn.jsonl (the held-out check, data README).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadConfig } from '../src/config/load.ts';
import { createJudge } from '../src/judges/create.ts';
import { piiCheckOf } from '../src/judges/pii.ts';
import type { SampledTriplet } from '../src/triplet.ts';

const FILE = new URL('../../shared/data/halueval/qa_one_turn.jsonl', import.meta.url).pathname;
const OUT = new URL('../tests/fixtures/halueval-embedded-scores.json', import.meta.url).pathname;
/** The embedded judge's page-severity metrics (the defaults' `severity: page`). */
const METRICS = ['grounding_lexical', 'pii_free'] as const;

interface Row { knowledge: string; question: string; right_answer: string; hallucinated_answer: string }
const rows = readFileSync(FILE, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row);
const config = loadConfig({ env: {}, overrides: { judge: { kind: 'embedded', embedded: { threads: 1 } } } });
const judge = createJudge(config);
await judge.init();
const pii = piiCheckOf(config);

const triplet = (i: number, r: Row, answer: string): SampledTriplet => ({
  id: `h${i}`, traceId: `h${i}`, spanId: 's', service: 'halueval', timestamp: new Date(0).toISOString(), query: r.question,
  sources: [{ content: r.knowledge }], response: answer, latency: { durationMs: 0 }, convention: 'custom', sampling: { weight: 1, stratum: 'all', rule: 'all' },
});

type Scores = Partial<Record<(typeof METRICS)[number], number>>;
const out: { source: string; metrics: readonly string[]; right: Scores[]; hallucinated: Scores[] } = { source: 'HaluEval qa_one_turn.jsonl (development set), embedded judge + PII check', metrics: METRICS, right: [], hallucinated: [] };
for (const [i, r] of rows.entries()) {
  for (const [kind, answer] of [['right', r.right_answer], ['hallucinated', r.hallucinated_answer]] as const) {
    const t = triplet(i, r, answer);
    const res = await judge.score(t);
    if (!res.ok) throw res.error;
    const scores: Scores = {};
    const all: Record<string, number | undefined> = { ...res.scores, pii_free: pii?.(t).free };
    for (const m of METRICS) if (all[m] !== undefined) scores[m] = Math.round(all[m]! * 1000) / 1000;
    out[kind].push(scores);
  }
}
await judge.shutdown();
writeFileSync(OUT, `${JSON.stringify(out)}\n`);
const flagged = (xs: Scores[]) => xs.filter((s) => s.grounding_lexical !== undefined && s.grounding_lexical <= 0.8).length / xs.filter((s) => s.grounding_lexical !== undefined).length;
console.log(JSON.stringify({ out: OUT, pairs: rows.length, right_flagged_share: +flagged(out.right).toFixed(3), hallucinated_flagged_share: +flagged(out.hallucinated).toFixed(3) }));
