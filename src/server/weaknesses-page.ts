/**
 * The `/weaknesses` page: every metric's weighted mean per question topic and per question type over
 * `metrics.windowMs`, as heat tables — red below the metric's threshold, faded under 20 answers — so
 * a person sees *where* the service fails (docs/weaknesses.md). Server-rendered, no scripts.
 * @module
 */
import type { WindowAggregate } from '../metrics/score-windows.ts';
import { escapeHtml } from './examples-page.ts';

/** What the page shows. */
export interface WeaknessView {
  windowMs: number;
  thresholds: Readonly<Record<string, number>>;
  /** Topic ids → names; empty during the warm-up. */
  topics: ReadonlyArray<{ id: string; label: string }>;
  /** Aggregates whose `service` field holds the topic id / the question type. */
  byTopic: readonly WindowAggregate[];
  byType: readonly WindowAggregate[];
}

/** Fewer answers than this: shown faded (too few to read). */
const FEW = 20;

function table(title: string, rows: ReadonlyArray<{ key: string; name: string }>, cells: readonly WindowAggregate[], thresholds: Readonly<Record<string, number>>): string {
  const columns = [...new Set(cells.map((c) => `${c.metric}\u0000${c.judge}`))].sort();
  if (rows.length === 0 || columns.length === 0) return `<h2>${escapeHtml(title)}</h2><p>No scored answers in the window yet.</p>`;
  const at = new Map(cells.map((c) => [`${c.service}\u0000${c.metric}\u0000${c.judge}`, c]));
  const head = columns.map((k) => {
    const [metric, judge] = k.split('\u0000');
    return `<th>${escapeHtml(metric!)}<br><span class="meta">${escapeHtml(judge!)}</span></th>`;
  });
  const body = rows.map((r) => {
    const tds = columns.map((k) => {
      const [metric, judge] = k.split('\u0000');
      const c = at.get(`${r.key}\u0000${metric}\u0000${judge}`);
      if (!c || c.mean === undefined) return '<td class="none">–</td>';
      const t = thresholds[metric!];
      const cls = [t !== undefined && c.mean < t ? 'low' : 'ok', c.samples < FEW ? 'few' : ''].join(' ').trim();
      return `<td class="${cls}" title="${c.samples} answers">${c.mean.toFixed(2)}<span class="n"> n=${c.samples}</span></td>`;
    });
    return `<tr><th scope="row">${escapeHtml(r.name)}</th>${tds.join('')}</tr>`;
  });
  return `<h2>${escapeHtml(title)}</h2><table><thead><tr><th></th>${head.join('')}</tr></thead><tbody>${body.join('')}</tbody></table>`;
}

/** The whole page. */
export function renderWeaknessesPage(view: WeaknessView): string {
  const topicRows = view.topics.filter((t) => view.byTopic.some((c) => c.service === t.id)).map((t) => ({ key: t.id, name: `${t.id} ${t.label}` }));
  const types = [...new Set(view.byType.map((c) => c.service))].sort().map((t) => ({ key: t, name: t }));
  const minutes = Math.round(view.windowMs / 60_000);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>ragwatch weaknesses</title>
<style>body{font:15px/1.45 system-ui,sans-serif;margin:1.5rem auto;max-width:70rem;padding:0 1rem;color:#1b1b1b}h1{font-size:1.3rem}h2{font-size:1.05rem;margin-top:1.4rem}
.meta{color:#555;font-size:.8rem}table{border-collapse:collapse}th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:right}th[scope=row]{text-align:left;font-weight:normal}
td.low{background:#f8b4b4}td.ok{background:#c6efce}td.few{opacity:.45}td.none{color:#aaa}.n{color:#555;font-size:.75rem}</style></head>
<body><h1>ragwatch: where the service fails</h1>
<p class="meta">Weighted mean of each metric over the last ${minutes} min, per question topic and per question type. Red: below the metric's threshold; faded: fewer than ${FEW} answers. ${view.topics.length === 0 ? 'Topics appear once weakness.warmupQueries questions were seen. ' : ''}Offline, with confidence intervals and flags: <code>ragwatch weaknesses</code>.</p>
${table('By question topic', topicRows, view.byTopic, view.thresholds)}
${table('By question type', types, view.byType, view.thresholds)}
</body></html>`;
}
