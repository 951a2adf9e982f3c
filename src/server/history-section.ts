/**
 * The front door's "History" section: per service, a small chart per metric (and judge) over the chosen
 * range — 1 h, 6 h, 24 h (the default) or 7 d, chosen with plain links (no script) — read from the
 * history in the embedded store (docs/history.md).
 * @module
 */
import type { HistoryView } from '../history/types.ts';
import { CHART_LEGEND, renderChart } from './history-chart.ts';
import type { ServiceReleases } from '../slices/types.ts';
import { escapeHtml as h, renderPage } from './layout.ts';
import { releasesSection } from './releases-section.ts';

const MIN = 60_000;
/** The ranges of the chooser and the step each is drawn with. */
export const HISTORY_RANGES = {
  '1h': { rangeMs: 60 * MIN, stepMs: MIN },
  '6h': { rangeMs: 360 * MIN, stepMs: 5 * MIN },
  '24h': { rangeMs: 1440 * MIN, stepMs: 10 * MIN },
  '7d': { rangeMs: 7 * 1440 * MIN, stepMs: 60 * MIN },
} as const;

/** A range of the chooser. */
export type HistoryRange = keyof typeof HISTORY_RANGES;

/** The range a `range` query parameter names, the default (24 h) when it names none. */
export function historyRange(value: string | undefined): HistoryRange {
  return value !== undefined && Object.hasOwn(HISTORY_RANGES, value) ? (value as HistoryRange) : '24h';
}

const anchor = (service: string) => `history-${encodeURIComponent(service).replace(/%/g, '_')}`;

/** The section: the chooser, the legend and the charts of every service with history in the range. */
export function historySection(view: HistoryView | undefined, o: { nowMs: number; range: HistoryRange }): string {
  const chooser = `<nav class="ranges" aria-label="history range">${(Object.keys(HISTORY_RANGES) as HistoryRange[]).map((r) => `<a href="/?range=${r}#history"${r === o.range ? ' aria-current="true"' : ''}>${r}</a>`).join('')}</nav>`;
  const title = `<h2>History <span class="meta">(weighted mean per step against the threshold and the service's normal band; JSON at <a href="/api/series">/api/series</a>)</span></h2>`;
  if (!view) return `<section id="history">${title}<p class="meta">No history here: it is kept by the process that sees every score — <code>ragwatch start</code>, or the <code>ragwatch slices</code> pod in split mode — unless history.enabled is false (docs/history.md).</p></section>`;
  const { rangeMs, stepMs } = HISTORY_RANGES[o.range];
  const fromMs = o.nowMs - rangeMs;
  const services = view.catalog(fromMs, o.nowMs);
  if (services.length === 0) return `<section id="history">${title}${chooser}<p class="meta">Nothing scored in the last ${o.range}.</p></section>`;
  let n = 0;
  const blocks = services.map(({ service, metrics }) => {
    const charts = metrics.map(({ metric, judge }) => {
      const r = view.series({ service, metric, judge, fromMs, toMs: o.nowMs, stepMs });
      const series = r.series.find((s) => s.judge === judge) ?? { judge, points: [] };
      return renderChart({ service, metric, series, fromMs: r.fromMs, toMs: r.toMs, stepMs: r.stepMs, threshold: r.threshold, firings: r.firings, releases: r.releases, id: `chart-${++n}` });
    });
    return `<h3 id="${h(anchor(service))}">${h(service)}</h3><div class="charts">${charts.join('')}</div>`;
  });
  return `<section id="history">${title}${chooser}${CHART_LEGEND}${blocks.join('')}</section>`;
}

/** The section's style (the front door adds it to its own). */
export const HISTORY_STYLE = `nav.ranges{display:flex;gap:.3rem;margin:.3rem 0}nav.ranges a{padding:.1rem .55rem;border:1px solid #adb5bd;border-radius:3px;text-decoration:none;color:#1b1b1b}nav.ranges a[aria-current]{background:#1f2933;color:#fff;border-color:#1f2933}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(23rem,1fr));gap:.8rem 1.4rem}figure.history{margin:0}figure.history figcaption{font-size:.92rem}svg.history-chart{display:block;max-width:36rem}
svg.history-chart text{font-size:9px;fill:#495057}svg.history-chart a.step:hover rect,svg.history-chart a.step:focus rect{fill:#1864ab22}svg.history-chart a.firing:hover rect{opacity:.3}svg.history-chart{touch-action:pan-y;user-select:none}
p.summary{font-size:.8rem;margin:.15rem 0;color:#333}details.numbers{font-size:.8rem}details.numbers table{margin-top:.3rem}.legend span{margin-right:.5rem}`;

/** The `ragwatch slices` pod's page (split mode): the history it keeps over every scorer's records, and the releases. */
export function renderHistoryPage(view: HistoryView, o: { nowMs: number; range: HistoryRange; releases: readonly ServiceReleases[]; nonce?: string }): string {
  const ago = (ms: number) => `${Math.round((o.nowMs - ms) / 60_000)} min ago`;
  return renderPage({
    title: 'history',
    path: '/',
    refreshS: 30,
    style: HISTORY_STYLE,
    ...(o.nonce ? { script: { nonce: o.nonce, code: HISTORY_SCRIPT } } : {}),
    body: `<h1>Quality over time</h1><p class="meta">The <code>ragwatch slices</code> pod: every scorer's answers, as of ${h(new Date(o.nowMs).toISOString())}. The scorers' pages show the rest (alerts, examples, review).</p>${historySection(view, o)}${releasesSection(o.releases, ago)}`,
  });
}

/**
 * The charts' one enhancement for a browser with JavaScript (the page works without): drag across a
 * chart to open the examples of that range, snapped to its steps. A click stays a click (the step's link).
 */
export const HISTORY_SCRIPT = `for (const svg of document.querySelectorAll('svg.history-chart[data-examples]')) {
  const d = svg.dataset, from = +d.from, to = +d.to, step = +d.step, x0 = +d.x0, x1 = +d.x1, width = +d.width;
  const xOf = (e) => { const r = svg.getBoundingClientRect(); return Math.min(x1, Math.max(x0, ((e.clientX - r.left) / r.width) * width)); };
  const tOf = (x) => from + ((x - x0) / (x1 - x0)) * (to - from);
  const band = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
  band.setAttribute('class', 'selecting'); band.setAttribute('y', '14'); band.setAttribute('height', '100'); band.setAttribute('fill', '#1864ab'); band.setAttribute('opacity', '0.15'); band.setAttribute('width', '0');
  let start = null;
  svg.addEventListener('pointerdown', (e) => { if (e.button !== 0) return; start = xOf(e); band.setAttribute('x', String(start)); band.setAttribute('width', '0'); svg.appendChild(band); });
  svg.addEventListener('pointermove', (e) => { if (start === null) return; const x = xOf(e); band.setAttribute('x', String(Math.min(start, x))); band.setAttribute('width', String(Math.abs(x - start))); });
  const end = (e) => {
    if (start === null) return;
    const x = xOf(e), a = Math.min(start, x), b = Math.max(start, x);
    start = null; band.remove();
    if (b - a < 4) return;
    e.preventDefault();
    const t0 = Math.floor(tOf(a) / step) * step, t1 = Math.ceil(tOf(b) / step) * step;
    location.href = d.examples + '&from=' + t0 + '&to=' + t1;
  };
  svg.addEventListener('pointerup', end);
  svg.addEventListener('pointerleave', (e) => { if (start !== null) end(e); });
}`;
