/**
 * The `/weaknesses` page (docs/weaknesses.md): the flagged cells first, each linking to its worst
 * answers; the topic × question type heat map of one bivariate metric; its distribution per topic as
 * SVG box plots; and every metric's mean per topic and per question type — red below the metric's
 * threshold, faded under `weakness.minCount` answers, flagged cells outlined. Server-rendered, no scripts.
 * @module
 */
import { cellPlace, type MetricCell } from '../weakness/cells.ts';
import type { WeaknessView } from '../weakness/monitor.ts';
import { escapeHtml, renderPage } from './layout.ts';

const f2 = (v: number) => v.toFixed(2);
const interval = (c: MetricCell) => `${f2(c.mean)} [${f2(c.ciLow)}, ${f2(c.ciHigh)}], n = ${c.n}${c.restMean === null ? '' : `, the rest ${f2(c.restMean)}`}`;

/** Background of a mean: red well below the threshold, through amber at it, to green above. */
function heat(mean: number, threshold: number | undefined): string {
  const t = threshold ?? 0.5;
  const x = Math.max(-1, Math.min(1, (mean - t) / Math.max(0.05, Math.min(t, 1 - t))));
  const hue = Math.round(60 + 60 * x);
  return `hsl(${hue} 70% ${x < 0 ? 80 : 85}%)`;
}

function tdOf(c: MetricCell | undefined, threshold: number | undefined, minCount: number): string {
  if (!c) return '<td class="none">–</td>';
  const cls = [c.flagged ? 'flag' : '', c.n < minCount ? 'few' : ''].join(' ').trim();
  return `<td${cls ? ` class="${cls}"` : ''} style="background:${heat(c.mean, threshold)}" title="${escapeHtml(interval(c))}">${f2(c.mean)}<span class="n"> n=${c.n}</span></td>`;
}

function marginalTable(title: string, dimension: string, rows: ReadonlyArray<{ key: string; name: string }>, cells: readonly MetricCell[], view: WeaknessView): string {
  const mine = cells.filter((c) => Object.keys(c.dimensions).length === 1 && c.dimensions[dimension] !== undefined);
  const columns = [...new Set(mine.map((c) => `${c.metric}\u0000${c.judge}`))].sort();
  const shown = rows.filter((r) => mine.some((c) => c.dimensions[dimension] === r.key));
  if (shown.length === 0 || columns.length === 0) return `<h2>${escapeHtml(title)}</h2><p>No scored answers in the window yet.</p>`;
  const at = new Map(mine.map((c) => [`${c.dimensions[dimension]}\u0000${c.metric}\u0000${c.judge}`, c]));
  const head = columns.map((k) => {
    const [metric, judge] = k.split('\u0000');
    return `<th>${escapeHtml(metric!)}<br><span class="meta">${escapeHtml(judge!)}</span></th>`;
  });
  const body = shown.map((r) => `<tr><th scope="row">${escapeHtml(r.name)}</th>${columns.map((k) => tdOf(at.get(`${r.key}\u0000${k}`), view.thresholds[k.split('\u0000')[0]!], view.minCount)).join('')}</tr>`);
  return `<h2>${escapeHtml(title)}</h2><table><thead><tr><th></th>${head.join('')}</tr></thead><tbody>${body.join('')}</tbody></table>`;
}

/** Quartiles and whiskers (Tukey: 1.5 IQR) of values. */
function box(values: number[]): { lo: number; q1: number; med: number; q3: number; hi: number } {
  const v = [...values].sort((a, b) => a - b);
  const q = (p: number) => {
    const i = (v.length - 1) * p;
    return v[Math.floor(i)]! + (v[Math.ceil(i)]! - v[Math.floor(i)]!) * (i - Math.floor(i));
  };
  const q1 = q(0.25);
  const q3 = q(0.75);
  const iqr = q3 - q1;
  return { lo: v.find((x) => x >= q1 - 1.5 * iqr)!, q1, med: q(0.5), q3, hi: [...v].reverse().find((x) => x <= q3 + 1.5 * iqr)! };
}

function boxPlots(metric: string, judge: string, view: WeaknessView, names: ReadonlyMap<string, string>): string {
  const byTopic = new Map<string, number[]>();
  for (const a of view.answers) {
    const v = a.scores[metric];
    if (a.judge !== judge || v === undefined || a.dims.topic === undefined) continue;
    const list = byTopic.get(a.dims.topic) ?? [];
    list.push(v);
    byTopic.set(a.dims.topic, list);
  }
  if (byTopic.size === 0) return '';
  const rows = [...byTopic.entries()].sort((a, b) => box(a[1]).med - box(b[1]).med);
  const W = 640;
  const left = 230;
  const x = (v: number) => left + v * (W - left - 20);
  const rowH = 26;
  const t = view.thresholds[metric];
  const parts = rows.map(([topic, values], i) => {
    const b = box(values);
    const y = 20 + i * rowH;
    const name = `${topic} ${names.get(topic) ?? ''}`.slice(0, 34);
    return `<text x="4" y="${y + 15}">${escapeHtml(name)} (${values.length})</text><line x1="${x(b.lo)}" x2="${x(b.hi)}" y1="${y + 11}" y2="${y + 11}" stroke="#555"/><rect x="${x(b.q1)}" y="${y + 3}" width="${Math.max(1, x(b.q3) - x(b.q1))}" height="16" fill="${heat(b.med, t)}" stroke="#333"/><line x1="${x(b.med)}" x2="${x(b.med)}" y1="${y + 3}" y2="${y + 19}" stroke="#000" stroke-width="2"/>`;
  });
  const h = 30 + rows.length * rowH;
  const axis = [0, 0.25, 0.5, 0.75, 1].map((v) => `<line x1="${x(v)}" x2="${x(v)}" y1="14" y2="${h - 12}" stroke="#eee"/><text x="${x(v) - 8}" y="${h}" class="ax">${v}</text>`).join('');
  const th = t === undefined ? '' : `<line x1="${x(t)}" x2="${x(t)}" y1="14" y2="${h - 12}" stroke="#c00" stroke-dasharray="4 3"/><text x="${x(t) + 3}" y="12" class="ax" fill="#c00">threshold ${t}</text>`;
  return `<h2>Distribution of ${escapeHtml(metric)} (${escapeHtml(judge)}) per topic</h2><svg role="img" aria-label="box plot per topic" width="${W}" height="${h + 4}" viewBox="0 0 ${W} ${h + 4}" font-size="12">${axis}${th}${parts.join('')}</svg>`;
}

function heatMap(metric: string, judge: string, view: WeaknessView, names: ReadonlyMap<string, string>): string {
  const cells = view.cells.filter((c) => c.metric === metric && c.judge === judge && c.dimensions.topic !== undefined && c.dimensions.queryType !== undefined);
  if (cells.length === 0) return `<h2>${escapeHtml(metric)}: topic × question type</h2><p>No answer of this metric has a topic yet.</p>`;
  const topics = [...new Set(cells.map((c) => c.dimensions.topic!))].sort((a, b) => (a === 'other' ? 1 : b === 'other' ? -1 : Number(a.slice(1)) - Number(b.slice(1))));
  const types = [...new Set(cells.map((c) => c.dimensions.queryType!))].sort();
  const at = new Map(cells.map((c) => [`${c.dimensions.topic}\u0000${c.dimensions.queryType}`, c]));
  const body = topics.map((t) => `<tr><th scope="row">${escapeHtml(`${t} ${names.get(t) ?? ''}`)}</th>${types.map((q) => tdOf(at.get(`${t}\u0000${q}`), view.thresholds[metric], view.minCount)).join('')}</tr>`);
  return `<h2>${escapeHtml(metric)} (${escapeHtml(judge)}): topic × question type</h2><table class="heat"><thead><tr><th></th>${types.map((q) => `<th>${escapeHtml(q)}</th>`).join('')}</tr></thead><tbody>${body.join('')}</tbody></table>`;
}

/** The whole page; `metric` picks the heat map's metric (default: the first bivariate metric with data). */
export function renderWeaknessesPage(view: WeaknessView, metric?: string): string {
  const names = new Map(view.topics.map((t) => [t.id, t.label]));
  const bivariate = [...new Set(view.cells.filter((c) => c.dimensions.topic !== undefined && c.dimensions.queryType !== undefined).map((c) => `${c.metric}\u0000${c.judge}`))].sort();
  const chosen = bivariate.find((k) => k.startsWith(`${metric ?? ''}\u0000`)) ?? bivariate[0];
  const [hm, hj] = chosen ? chosen.split('\u0000') : [];
  const flagged = view.cells.filter((c) => c.flagged).sort((a, b) => a.mean - b.mean);
  const flaggedHtml =
    flagged.length === 0
      ? `<p>No cell is flagged: none is worse than the rest of the traffic (interval below the rest, Benjamini–Hochberg, at least ${view.minCount} answers).</p>`
      : `<ol class="flags">${flagged
          .map((c) => {
            const link = c.worst?.length ? ` <a href="examples?metric=${encodeURIComponent(c.metric)}&amp;ids=${c.worst.map(encodeURIComponent).join(',')}">worst answers</a>` : '';
            return `<li><b>${escapeHtml(c.metric)}</b> <span class="meta">${escapeHtml(c.judge)}</span> on ${escapeHtml(cellPlace(c.dimensions, (id) => names.get(id)))}: <b>${f2(c.mean)}</b> [${f2(c.ciLow)}, ${f2(c.ciHigh)}], n = ${c.n}; the rest ${c.restMean === null ? 'n/a' : f2(c.restMean)}${link}</li>`;
          })
          .join('')}</ol>`;
  const picker = bivariate.length > 1 ? `<p class="meta">Heat map of: ${bivariate.map((k) => k.split('\u0000')[0]!).filter((m, i, a) => a.indexOf(m) === i).map((m) => (m === hm ? `<b>${escapeHtml(m)}</b>` : `<a href="?metric=${encodeURIComponent(m)}">${escapeHtml(m)}</a>`)).join(' · ')}</p>` : '';
  const topicRows = view.topics.map((t) => ({ key: t.id, name: `${t.id} ${t.label}` }));
  const typeRows = [...new Set(view.cells.map((c) => c.dimensions.queryType).filter((q): q is string => q !== undefined))].sort().map((q) => ({ key: q, name: q }));
  const minutes = Math.round(view.windowMs / 60_000);
  return renderPage({
    title: 'weaknesses',
    path: '/weaknesses',
    style: 'td.flag{outline:3px solid #b00;outline-offset:-3px;font-weight:bold}td.few{opacity:.45}td.none{color:#aaa}.n{color:#555;font-size:.75rem}.ax{fill:#777;font-size:10px}ol.flags li{margin:.2rem 0}',
    body: `<h1>Where the service fails</h1>
<p class="meta">Scored answers of the last ${minutes} min. A cell is <b>flagged</b> (outlined) when its 95 % interval lies below the rest of the traffic (one-sided Welch test, Benjamini–Hochberg, at least ${view.minCount} answers). Colour: red below the metric's threshold, green above; faded: fewer than ${view.minCount} answers; hover a cell for its interval. ${view.topics.length === 0 ? 'Topics appear once weakness.warmupQueries questions were seen. ' : ''}Offline: <code>ragwatch weaknesses</code>.</p>
<h2>Flagged cells, worst first</h2>${flaggedHtml}
${picker}${hm && hj ? heatMap(hm, hj, view, names) + boxPlots(hm, hj, view, names) : ''}
${marginalTable('By question topic', 'topic', topicRows, view.cells, view)}
${marginalTable('By question type', 'queryType', typeRows, view.cells, view)}`,
  });
}
