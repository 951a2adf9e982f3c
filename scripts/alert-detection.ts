/**
 * The detection tables of docs/alerts.md, measured by the backtest's replay (the evaluators a scoring
 * process runs) on seeded streams of Poisson arrivals whose scores are drawn from the embedded
 * judge's real scores of HaluEval's development set (`tests/fixtures/halueval-embedded-scores.json`:
 * right answers and hallucinated ones, about 60 % of which the judge flags).
 *
 * 1. Service-wide: healthy = 5 % hallucinated; a day of it, then a shift to 10, 15, 25 or 40 %; for each
 *    alert kind (threshold: the default grounding_lexical alert; change: the default page tier; burn
 *    rate: a 95 % SLO's page alerts) the median / p90 / p95 delay over the seeds that paged within 6 h,
 *    and the false pages of 30 healthy days.
 * 2. Slices, at 0.2 answers/s over 8 routes: release v1 healthy for 6 h, then a canary v2 takes 5, 10 or
 *    20 % of the traffic, every answer or half of them hallucinated; the delay of the first page naming
 *    `release="v2"` (within 4 h), and the false pages of 30 days with an identical 10 % canary.
 *
 * With `--judge local` the scores are the local judge's (`tests/fixtures/halueval-local-scores.json`):
 * claim_support and grounding_lexical each page at their default thresholds (an answer is flagged when
 * either is low), the SLO on claim_support.
 *
 *   ./node_modules/.bin/node scripts/alert-detection.ts [--seeds N] [--table service|slices|both] [--judge embedded|local]
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/load.ts';
import { replay, type BacktestKind } from '../src/roles/backtest.ts';
import { realStream, type Traffic } from '../tests/helpers/real-scores.ts';

const { values } = parseArgs({ options: { seeds: { type: 'string', default: '20' }, table: { type: 'string', default: 'both' }, judge: { type: 'string', default: 'embedded' } } });
if (values.judge !== 'embedded' && values.judge !== 'local') throw new Error('--judge embedded|local');
const JUDGE = values.judge;
const stream = (seed: number, start: number, minutes: number, t: Traffic) => realStream(seed, start, minutes, t, JUDGE);
const SEEDS = Number(values.seeds);
const START = Date.UTC(2026, 0, 1);
const ROUTES = ['/a', '/b', '/c', '/d', '/e', '/f', '/g', '/h'];
const HEALTHY = 0.05;
type Kind = Exclude<BacktestKind, 'slice'>;
const KINDS: Kind[] = ['threshold', 'change', 'burn_rate'];

const quantile = (xs: number[], q: number) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)]!);
const fmt = (m: number) => (Number.isNaN(m) ? '—' : m >= 60 ? `${(m / 60).toFixed(1)} h` : `${Math.round(m)} min`);
const cell = (d: number[]) => (d.length === 0 ? `not paged (0/${SEEDS})` : `${fmt(quantile(d, 0.5))} / ${fmt(quantile(d, 0.9))} / ${fmt(quantile(d, 0.95))} (${d.length}/${SEEDS})`);

/** Page firings (start times) of a replay, per kind, with the slice they name. */
function pages(config: ReturnType<typeof loadConfig>, records: ReturnType<typeof realStream>): Array<{ kind: BacktestKind; ms: number; slice?: Record<string, string> }> {
  return replay(config, records).alerts.filter((a) => a.severity === 'page').flatMap((a) => a.firings.map((f) => ({ kind: a.kind, ms: Date.parse(f.start), ...(a.slice ? { slice: a.slice } : {}) })));
}

function serviceTable(): string[] {
  const metrics =
    JUDGE === 'local'
      ? { claim_support: { threshold: 0.3, severity: 'page', slo: { objective: 0.95 } }, grounding_lexical: { threshold: 0.8, severity: 'page' } }
      : { grounding_lexical: { threshold: 0.8, severity: 'page', slo: { objective: 0.95 } } };
  const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, alerts: { evaluate: false, slices: { enabled: false }, metrics } } });
  const shifts = [0.1, 0.15, 0.25, 0.4];
  const rows = [`| answers/s | kind | false pages / 30 days | ${shifts.map((s) => `5 → ${s * 100} %`).join(' | ')} |`, `|${'---|'.repeat(3 + shifts.length)}`];
  for (const rate of [0.05, 0.2, 1]) {
    const oneService: Traffic = { ratePerS: rate, release: () => 'v1', hallucinated: () => HEALTHY };
    const healthy = pages(config, stream(1000, START, 30 * 24 * 60, oneService));
    const cells: Record<Kind, string[]> = { threshold: [], change: [], burn_rate: [] };
    for (const shift of shifts) {
      const delays: Record<Kind, number[]> = { threshold: [], change: [], burn_rate: [] };
      const at = START + 24 * 3_600_000;
      for (let seed = 1; seed <= SEEDS; seed++) {
        const p = pages(config, stream(seed, START, 30 * 60, { ...oneService, hallucinated: (_r, ms) => (ms >= 24 * 3_600_000 ? shift : HEALTHY) }));
        for (const kind of KINDS) {
          const first = p.filter((x) => x.kind === kind && x.ms >= at).map((x) => x.ms).sort((a, b) => a - b)[0];
          if (first !== undefined) delays[kind].push((first - at) / 60_000);
        }
      }
      for (const kind of KINDS) cells[kind].push(cell(delays[kind]));
    }
    for (const kind of KINDS) rows.push(`| ${rate} | ${kind === 'burn_rate' ? 'burn rate (SLO 95 %)' : kind} | ${healthy.filter((x) => x.kind === kind).length} | ${cells[kind].join(' | ')} |`);
    console.error(`service-wide, rate ${rate} done`);
  }
  return rows;
}

function sliceTable(): string[] {
  const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, alerts: { evaluate: false } } });
  const canary = (share: number, bad: number, atMin: number): Traffic => ({ ratePerS: 0.2, routes: ROUTES, release: (u, ms) => (ms >= atMin * 60_000 && u < share ? 'v2' : 'v1'), hallucinated: (r) => (r === 'v2' ? bad : HEALTHY) });
  const rows = ['| canary share | v2 answers hallucinated | first page naming release="v2": median / p90 / p95 (paged within 4 h) | pages before the canary |', '|---|---|---|---|'];
  for (const [share, bad] of [[0.05, 1], [0.05, 0.5], [0.1, 1], [0.1, 0.5], [0.2, 1], [0.2, 0.5]] as const) {
    const delays: number[] = [];
    let early = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const p = pages(config, stream(seed, START, 10 * 60, canary(share, bad, 360))).filter((x) => x.kind === 'slice');
      const at = START + 360 * 60_000;
      early += p.filter((x) => x.ms < at).length;
      const first = p.filter((x) => x.ms >= at && x.slice?.release === 'v2').map((x) => x.ms).sort((a, b) => a - b)[0];
      if (first !== undefined) delays.push((first - at) / 60_000);
    }
    rows.push(`| ${share * 100} % | ${bad === 1 ? 'every one' : 'half'} | ${cell(delays)} | ${early} |`);
    console.error(`slices, canary ${share} × ${bad} done`);
  }
  const identical = pages(config, stream(2000, START, 30 * 24 * 60, { ratePerS: 0.2, routes: ROUTES, release: (u) => (u < 0.1 ? 'v2' : 'v1'), hallucinated: () => HEALTHY }));
  rows.push('', `False pages in 30 healthy days (8 routes, an identical 10 % canary, every slice monitored): slice ${identical.filter((x) => x.kind === 'slice').length}, change ${identical.filter((x) => x.kind === 'change').length}, threshold ${identical.filter((x) => x.kind === 'threshold').length}.`);
  return rows;
}

if (values.table !== 'slices') console.log(serviceTable().join('\n'), '\n');
if (values.table !== 'service') console.log(sliceTable().join('\n'));
