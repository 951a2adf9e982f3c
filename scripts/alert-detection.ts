/**
 * The detection table of docs/alerts.md, measured by the backtest's replay (the evaluators a scoring
 * process runs) on seeded simulated streams: Poisson arrivals at 0.05, 0.2 and 1 judged answers per
 * second; healthy = 5 % of answers hallucinated (scoring 0.69, the embedded judge's mean on HaluEval's
 * hallucinated answers; right answers 1.0); a day of healthy traffic, then a shift to 10, 15 or 25 %.
 * For each alert kind (threshold: the default groundedness alert; change: the default page tier;
 * burn rate: a 95 % SLO's page alerts) the median and p90 detection delay over the seeds, the share
 * detected within 6 hours, and the false pages of 30 healthy days.
 *
 *   ./node_modules/.bin/node scripts/alert-detection.ts [--seeds N]
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/load.ts';
import { replay, type BacktestKind } from '../src/roles/backtest.ts';
import type { ScoreRecord } from '../src/triplet.ts';
import { rng } from '../tests/helpers/rng.ts';

const { values } = parseArgs({ options: { seeds: { type: 'string', default: '10' } } });
const SEEDS = Number(values.seeds);
const RATES = process.env.RATES ? process.env.RATES.split(",").map(Number) : [0.05, 0.2, 1];
const SHIFTS = [0.1, 0.15, 0.25, 0.4];
const HEALTHY = 0.05;
const BAD_SCORE = 0.69;
const WARMUP_MIN = 24 * 60;
const AFTER_MIN = 6 * 60;
const START = Date.UTC(2026, 0, 1);
const KINDS: BacktestKind[] = ['threshold', 'change', 'burn_rate'];
const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, alerts: { evaluate: false, metrics: { groundedness: { threshold: 0.8, severity: 'page', slo: { objective: 0.95 } } } } } });

function stream(seed: number, minutes: number, ratePerS: number, bad: (minute: number) => number): Array<{ ms: number; record: ScoreRecord }> {
  const random = rng(seed);
  const out: Array<{ ms: number; record: ScoreRecord }> = [];
  let t = START;
  const end = START + minutes * 60_000;
  for (;;) {
    t += (-Math.log(1 - random()) / ratePerS) * 1000;
    if (t >= end) return out;
    const ms = Math.floor(t);
    const score = random() < bad(Math.floor((ms - START) / 60_000)) ? BAD_SCORE : 1;
    out.push({ ms, record: { tripletId: 't', traceId: 't', service: 'rag', stratum: 'all', weight: 1, timestamp: '', judge: { kind: 'llm' }, scores: { groundedness: score }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } } });
  }
}

/** Page firings (start times) of each kind. */
function pages(records: ReturnType<typeof stream>): Record<BacktestKind, number[]> {
  const out: Record<BacktestKind, number[]> = { threshold: [], change: [], burn_rate: [] };
  for (const a of replay(config, records).alerts) if (a.severity === 'page') out[a.kind].push(...a.firings.map((f) => Date.parse(f.start)));
  return out;
}

const quantile = (xs: number[], q: number) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)]!);
const fmt = (m: number) => (Number.isNaN(m) ? '—' : m >= 60 ? `${(m / 60).toFixed(1)} h` : `${Math.round(m)} min`);

const rows: string[] = [`| answers/s | kind | false pages / 30 days | ${SHIFTS.map((s) => `5 → ${s * 100} %`).join(" | ")} |`, `|${"---|".repeat(3 + SHIFTS.length)}`];
for (const rate of RATES) {
  const healthy = pages(stream(1000, 30 * 24 * 60, rate, () => HEALTHY));
  const cells: Record<BacktestKind, string[]> = { threshold: [], change: [], burn_rate: [] };
  for (const shift of SHIFTS) {
    const delays: Record<BacktestKind, number[]> = { threshold: [], change: [], burn_rate: [] };
    const early: Record<BacktestKind, number> = { threshold: 0, change: 0, burn_rate: 0 };
    for (let seed = 1; seed <= SEEDS; seed++) {
      const p = pages(stream(seed, WARMUP_MIN + AFTER_MIN, rate, (m) => (m < WARMUP_MIN ? HEALTHY : shift)));
      const at = START + WARMUP_MIN * 60_000;
      for (const kind of KINDS) {
        early[kind] += p[kind].filter((t) => t < at).length;
        const first = p[kind].find((t) => t >= at);
        if (first !== undefined) delays[kind].push((first - at) / 60_000);
      }
    }
    for (const kind of KINDS) {
      const d = delays[kind];
      cells[kind].push(d.length === 0 ? `not paged (0/${SEEDS})` : `${fmt(quantile(d, 0.5))} / ${fmt(quantile(d, 0.9))} (${d.length}/${SEEDS})`);
    }
    if (shift === SHIFTS[0]) console.error(`rate ${rate}: pages in ${SEEDS} healthy first days (a cold start each): ${JSON.stringify(early)}`);
  }
  for (const kind of KINDS) rows.push(`| ${rate} | ${kind === 'burn_rate' ? 'burn rate (SLO 95 %)' : kind} | ${healthy[kind].length} | ${cells[kind].join(' | ')} |`);
  console.error(`rate ${rate} done`);
}
console.log(rows.join('\n'));
