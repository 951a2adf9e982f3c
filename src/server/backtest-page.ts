/**
 * The backtest's picture (`ragwatch alerts backtest --html FILE`): one self-contained HTML file with an
 * SVG chart per alerted series — the share of answers at or below the metric's threshold per time
 * bucket, its trailing baseline (the day before), and a band per alert kind where it fired.
 * @module
 */
import type { ScoreRecord } from '../triplet.ts';
import { escapeHtml } from './layout.ts';

/** One alerted series and its firings (a backtest report's alert, any kind). */
export interface BacktestSeries {
  metric: string;
  judge: string;
  service: string;
  firings: Array<{ name: string; kind: string; severity: string; start: string; end: string }>;
}

const W = 960;
const H = 220;
const PAD = { left: 48, right: 12, top: 16, bottom: 28 };
const BUCKETS = 240;
const BASELINE_MS = 86_400_000;
const COLORS: Readonly<Record<string, string>> = { change: '#d9480f', burn_rate: '#7048e8', threshold: '#1971c2' };

/** The page: every alerted series of the records, with `cut` per metric (its threshold). */
export function renderBacktestPage(records: ReadonlyArray<{ ms: number; record: ScoreRecord }>, series: readonly BacktestSeries[], cuts: Readonly<Record<string, number>>): string {
  const from = records[0]?.ms ?? 0;
  const to = Math.max(from + 1, records.at(-1)?.ms ?? 0);
  const step = (to - from) / BUCKETS;
  const charts = series.map((s) => {
    const cut = cuts[s.metric] ?? 0;
    const weight = new Float64Array(BUCKETS);
    const flagged = new Float64Array(BUCKETS);
    for (const { ms, record } of records) {
      const score = record.scores[s.metric as keyof ScoreRecord['scores']];
      if (score === undefined || record.service !== s.service || record.judge.kind !== s.judge) continue;
      const i = Math.min(BUCKETS - 1, Math.floor((ms - from) / step));
      weight[i]! += record.weight;
      if (score <= cut) flagged[i]! += record.weight;
    }
    const share = [...weight].map((w, i) => (w > 0 ? flagged[i]! / w : null));
    // Trailing baseline: the day before each bucket (as the change alert's page tier sees it).
    const span = Math.max(1, Math.round(BASELINE_MS / step));
    const baseline = share.map((_, i) => {
      let w = 0;
      let f = 0;
      for (let j = Math.max(0, i - span); j < i; j++) {
        w += weight[j]!;
        f += flagged[j]!;
      }
      return w > 0 ? f / w : null;
    });
    const top = Math.max(0.1, ...share.map((v) => v ?? 0), ...baseline.map((v) => v ?? 0));
    const x = (ms: number) => PAD.left + ((ms - from) / (to - from)) * (W - PAD.left - PAD.right);
    const y = (v: number) => PAD.top + (1 - v / top) * (H - PAD.top - PAD.bottom);
    const path = (values: ReadonlyArray<number | null>) =>
      values
        .map((v, i) => (v === null ? '' : `${i === 0 || values[i - 1] === null ? 'M' : 'L'}${x(from + (i + 0.5) * step).toFixed(1)},${y(v).toFixed(1)}`))
        .join('');
    const bands = s.firings
      .map((f) => `<rect x="${x(Date.parse(f.start)).toFixed(1)}" y="${PAD.top}" width="${Math.max(1, x(Date.parse(f.end)) - x(Date.parse(f.start))).toFixed(1)}" height="${H - PAD.top - PAD.bottom}" fill="${COLORS[f.kind] ?? '#868e96'}" opacity="0.18"><title>${escapeHtml(`${f.name} (${f.kind}, ${f.severity}) ${f.start} → ${f.end}`)}</title></rect>`)
      .join('');
    const ticks = [0, 0.5, 1].map((q) => `<text x="${PAD.left - 6}" y="${y(q * top) + 4}" text-anchor="end">${(q * top * 100).toFixed(0)} %</text>`).join('');
    const dates = ([[0, 'start'], [0.5, 'middle'], [1, 'end']] as const).map(([q, anchor]) => `<text x="${x(from + q * (to - from))}" y="${H - 8}" text-anchor="${anchor}">${escapeHtml(new Date(from + q * (to - from)).toISOString().slice(0, 16).replace('T', ' '))}</text>`).join('');
    const kinds = [...new Set(s.firings.map((f) => f.kind))].map((k) => `<span class="key" style="background:${COLORS[k] ?? '#868e96'}"></span>${escapeHtml(k)}`).join(' ');
    return `<section><h2>${escapeHtml(s.metric)} · ${escapeHtml(s.service)} · ${escapeHtml(s.judge)} judge</h2><p>share of answers at or below ${cut} (solid), the day before (dashed); fired: ${kinds}</p>
<svg viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="${escapeHtml(`${s.metric} ${s.service}`)}">${bands}<line x1="${PAD.left}" y1="${H - PAD.bottom}" x2="${W - PAD.right}" y2="${H - PAD.bottom}" stroke="#adb5bd"/>${ticks}${dates}<path d="${path(baseline)}" fill="none" stroke="#495057" stroke-dasharray="6 4"/><path d="${path(share)}" fill="none" stroke="#212529" stroke-width="1.5"/></svg></section>`;
  });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>ragwatch alerts backtest</title><style>
body{font:14px system-ui,sans-serif;margin:24px;color:#212529}h1{font-size:20px}h2{font-size:15px;margin:24px 0 4px}p{margin:0 0 6px;color:#495057}
svg text{font-size:11px;fill:#495057}.key{display:inline-block;width:12px;height:12px;margin:0 4px 0 8px;vertical-align:-1px;opacity:.5}</style></head><body>
<h1>ragwatch alerts backtest</h1><p>${records.length} records from ${escapeHtml(new Date(from).toISOString())} to ${escapeHtml(new Date(to).toISOString())}; ${series.length} alerted series.</p>
${charts.join('\n') || '<p>No alert fired.</p>'}
</body></html>
`;
}
