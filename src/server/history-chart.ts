/**
 * One small history chart, server-rendered SVG (no script, no external resource): a metric's weighted
 * mean per step with its normal band, the flagged share, the threshold line, alert firings shaded and
 * release changes marked. Every step with answers is a link to the examples of its window, every
 * firing to those of the firing. Beside the picture, the same numbers as text (a summary for screen
 * readers and a table), so the page says them without the picture.
 * @module
 */
import type { Firing, JudgeSeries, ReleaseChange, SeriesPoint } from '../history/types.ts';
import { escapeHtml as h, fmt2 } from './layout.ts';

/** What one chart draws. */
export interface ChartInput {
  service: string;
  metric: string;
  series: JudgeSeries;
  fromMs: number;
  toMs: number;
  stepMs: number;
  threshold: number | null;
  firings: readonly Firing[];
  releases: readonly ReleaseChange[];
  /** Unique per page (the summary's id). */
  id: string;
}

const W = 360;
const H = 132;
const PAD = { left: 30, right: 8, top: 14, bottom: 18 };
const COLOR = { mean: '#1864ab', band: '#74c0fc', flagged: '#e8590c', threshold: '#c92a2a', firing: '#fa5252', release: '#5f3dc4' };

const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(0)} %`);
const q = encodeURIComponent;

/** A time as the charts write it (UTC): `HH:MM`, with the day when the window spans days. */
export function chartTime(ms: number, withDay: boolean): string {
  const iso = new Date(ms).toISOString();
  return withDay ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16);
}

/** The examples of one service and metric between two times (the page accepts from/to). */
export function examplesHref(service: string, metric: string, fromMs: number, toMs: number, threshold: number | null): string {
  return `/examples?service=${q(service)}&metric=${q(metric)}${threshold !== null ? `&below=${threshold}` : ''}&from=${Math.floor(fromMs)}&to=${Math.ceil(toMs)}`;
}

function path(points: readonly SeriesPoint[], value: (p: SeriesPoint) => number | null, x: (t: number) => number, y: (v: number) => number): string {
  let d = '';
  for (let i = 0; i < points.length; i++) {
    const v = value(points[i]!);
    if (v === null) continue;
    const prev = i > 0 ? value(points[i - 1]!) : null;
    d += `${prev === null ? 'M' : 'L'}${x(points[i]!.t).toFixed(1)},${y(v).toFixed(1)}`;
  }
  return d;
}

/** The band as closed areas, one per run of steps that have one. */
function bandAreas(points: readonly SeriesPoint[], x: (t: number) => number, y: (v: number) => number, half: number): string {
  const runs: SeriesPoint[][] = [];
  let run: SeriesPoint[] = [];
  for (const p of points) {
    if (p.band) run.push(p);
    else if (run.length > 0) {
      runs.push(run);
      run = [];
    }
  }
  if (run.length > 0) runs.push(run);
  return runs
    .map((r) => {
      const top = r.map((p) => `${(x(p.t) - half).toFixed(1)},${y(p.band!.high).toFixed(1)} ${(x(p.t) + half).toFixed(1)},${y(p.band!.high).toFixed(1)}`);
      const bottom = [...r].reverse().map((p) => `${(x(p.t) + half).toFixed(1)},${y(p.band!.low).toFixed(1)} ${(x(p.t) - half).toFixed(1)},${y(p.band!.low).toFixed(1)}`);
      return `<polygon points="${[...top, ...bottom].join(' ')}" fill="${COLOR.band}" opacity="0.35"/>`;
    })
    .join('');
}

/** Rounding of sums is not a departure: a mean within this of its band's edge is inside. */
const EPSILON = 1e-9;

/** Steps whose mean lies outside their band. */
export function outsideBand(points: readonly SeriesPoint[]): SeriesPoint[] {
  return points.filter((p) => p.mean !== null && p.band !== null && (p.mean < p.band.low - EPSILON || p.mean > p.band.high + EPSILON));
}

/** The text that says what the chart shows (its accessible description and the no-picture reading). */
export function chartSummary(c: ChartInput): string {
  const pts = c.series.points.filter((p) => p.mean !== null);
  const withDay = c.toMs - c.fromMs >= 86_400_000;
  if (pts.length === 0) return `No answer scored in this window.`;
  let weight = 0;
  let sum = 0;
  let answers = 0;
  let flaggedSum = 0;
  let flaggedAnswers = 0;
  for (const p of pts) {
    weight += p.weight;
    sum += p.mean! * p.weight;
    answers += p.answers;
    if (p.flaggedShare !== null) {
      flaggedSum += p.flaggedShare * p.weight;
      flaggedAnswers += p.weight;
    }
  }
  const low = pts.reduce((a, b) => (b.mean! < a.mean! ? b : a));
  const parts = [`Mean ${fmt2(sum / weight)} (lowest ${fmt2(low.mean)} at ${chartTime(low.t, withDay)})`, ...(flaggedAnswers > 0 ? [`${pct(flaggedSum / flaggedAnswers)} flagged`] : []), `${answers} answers`];
  let text = `${parts.join(', ')}.`;
  const outside = outsideBand(pts);
  if (outside.length > 0) text += ` Outside its normal band at ${outside.length} of ${pts.length} steps (first ${chartTime(outside[0]!.t, withDay)}).`;
  for (const f of c.firings) text += ` ${f.name} fired ${chartTime(Math.max(f.startMs, c.fromMs), withDay)}–${f.endMs === undefined ? 'now' : chartTime(f.endMs, withDay)}.`;
  for (const r of c.releases) text += ` Release ${r.release} from ${chartTime(r.firstMs, withDay)}.`;
  return text;
}

/** The chart's SVG. */
export function chartSvg(c: ChartInput): string {
  const withDay = c.toMs - c.fromMs >= 86_400_000;
  const x = (t: number) => PAD.left + ((t - c.fromMs) / (c.toMs - c.fromMs)) * (W - PAD.left - PAD.right);
  const y = (v: number) => PAD.top + (1 - v) * (H - PAD.top - PAD.bottom);
  const stepW = Math.max(1, x(c.fromMs + c.stepMs) - x(c.fromMs));
  const center = (t: number) => x(t + c.stepMs / 2);
  const pts = c.series.points;
  const grid = [0, 0.5, 1].map((v) => `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(v)}" y2="${y(v)}" stroke="#dee2e6"/><text x="${PAD.left - 4}" y="${y(v) + 3}" text-anchor="end">${v.toFixed(1)}</text>`).join('');
  const times = ([[c.fromMs, 'start'], [(c.fromMs + c.toMs) / 2, 'middle'], [c.toMs, 'end']] as const).map(([t, a]) => `<text x="${x(t).toFixed(1)}" y="${H - 5}" text-anchor="${a}">${chartTime(t, withDay)}</text>`).join('');
  const firings = c.firings
    .map((f) => {
      const x0 = x(Math.max(c.fromMs, f.startMs));
      const x1 = x(Math.min(c.toMs, f.endMs ?? c.toMs));
      const label = `${f.name}${f.severity ? ` (${f.severity})` : ''} fired ${chartTime(f.startMs, withDay)}–${f.endMs === undefined ? 'now' : chartTime(f.endMs, withDay)} UTC: its answers`;
      const w = Math.max(2, x1 - x0).toFixed(1);
      // Shaded under the lines; a strip along the top (above the steps' links) opens the firing's answers.
      return {
        shade: `<rect class="firing" x="${x0.toFixed(1)}" y="${PAD.top}" width="${w}" height="${H - PAD.top - PAD.bottom}" fill="${COLOR.firing}" opacity="0.18"/>`,
        link: `<a class="firing" href="${h(examplesHref(c.service, c.metric, f.startMs, f.endMs ?? c.toMs, c.threshold))}"><rect x="${x0.toFixed(1)}" y="${PAD.top}" width="${w}" height="6" fill="${COLOR.firing}" opacity="0.7"><title>${h(label)}</title></rect></a>`,
      };
    });
  const releases = c.releases
    .map((r) => `<g class="release"><line x1="${x(r.firstMs).toFixed(1)}" x2="${x(r.firstMs).toFixed(1)}" y1="${PAD.top - 2}" y2="${H - PAD.bottom}" stroke="${COLOR.release}" stroke-width="1.5" stroke-dasharray="3 2"/><text x="${(x(r.firstMs) + 2).toFixed(1)}" y="${PAD.top - 4}" fill="${COLOR.release}">${h(r.release)}</text><title>${h(`release ${r.release} first seen ${chartTime(r.firstMs, withDay)} UTC`)}</title></g>`)
    .join('');
  const threshold = c.threshold === null ? '' : `<line class="threshold" x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(c.threshold).toFixed(1)}" y2="${y(c.threshold).toFixed(1)}" stroke="${COLOR.threshold}" stroke-dasharray="5 3"><title>threshold ${c.threshold}</title></line>`;
  // A lone step (no neighbour with answers) would draw no line: a dot shows it.
  const dots = pts
    .filter((p, i) => p.mean !== null && (pts[i - 1]?.mean ?? null) === null && (pts[i + 1]?.mean ?? null) === null)
    .map((p) => `<circle cx="${center(p.t).toFixed(1)}" cy="${y(p.mean!).toFixed(1)}" r="1.8" fill="${COLOR.mean}"/>`)
    .join('');
  const steps = pts
    .filter((p) => p.answers > 0)
    .map((p) => `<a class="step" href="${h(examplesHref(c.service, c.metric, p.t, p.t + c.stepMs, c.threshold))}"><rect x="${x(p.t).toFixed(1)}" y="${PAD.top}" width="${stepW.toFixed(1)}" height="${H - PAD.top - PAD.bottom}" fill="transparent"><title>${h(`${chartTime(p.t, withDay)} UTC: mean ${fmt2(p.mean)}${p.band ? ` (normal ${fmt2(p.band.low)}–${fmt2(p.band.high)})` : ''}, ${pct(p.flaggedShare)} flagged, ${p.answers} answers — its answers`)}</title></rect></a>`)
    .join('');
  const shifted = pts.map((p) => ({ ...p, t: p.t + c.stepMs / 2 }));
  // data-*: what the page's optional script needs to turn a dragged range into the examples of that window.
  const select = `data-from="${c.fromMs}" data-to="${c.toMs}" data-step="${c.stepMs}" data-x0="${PAD.left}" data-x1="${W - PAD.right}" data-width="${W}" data-examples="${h(examplesHref(c.service, c.metric, 0, 0, c.threshold).replace(/&from=0&to=0$/, ''))}"`;
  return `<svg viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-labelledby="${c.id}-title ${c.id}-summary" class="history-chart" ${select}><title id="${c.id}-title">${h(`${c.metric} of ${c.service} (${c.series.judge} judge)`)}</title>${grid}${firings.map((f) => f.shade).join('')}${bandAreas(shifted, x, y, stepW / 2)}${threshold}<path d="${path(shifted, (p) => p.flaggedShare, x, y)}" fill="none" stroke="${COLOR.flagged}" stroke-width="1.2"/><path d="${path(shifted, (p) => p.mean, x, y)}" fill="none" stroke="${COLOR.mean}" stroke-width="1.8"/>${dots}${releases}${times}${steps}${firings.map((f) => f.link).join('')}</svg>`;
}

/** The chart's numbers as a table (collapsed). */
export function chartTable(c: ChartInput): string {
  const withDay = c.toMs - c.fromMs >= 86_400_000;
  const rows = c.series.points
    .filter((p) => p.answers > 0)
    .map((p) => `<tr><th scope="row"><a href="${h(examplesHref(c.service, c.metric, p.t, p.t + c.stepMs, c.threshold))}">${chartTime(p.t, withDay)}</a></th><td>${fmt2(p.mean)}</td><td>${p.band ? `${fmt2(p.band.low)}–${fmt2(p.band.high)}` : '–'}</td><td>${pct(p.flaggedShare)}</td><td>${p.answers}</td></tr>`);
  if (rows.length === 0) return '';
  return `<details class="numbers"><summary>The numbers (${rows.length} ${rows.length === 1 ? 'step' : 'steps'} of ${Math.round(c.stepMs / 60_000)} min, UTC)</summary><table><tr><th>step</th><th>mean</th><th>normal band</th><th>flagged</th><th>answers</th></tr>${rows.join('')}</table></details>`;
}

/** The legend shared by the charts of a page. */
export const CHART_LEGEND = `<p class="legend meta"><span style="color:${COLOR.mean}">━ mean</span> <span style="background:${COLOR.band}66">&nbsp;normal band&nbsp;</span> <span style="color:${COLOR.flagged}">━ flagged share</span> <span style="color:${COLOR.threshold}">╌ threshold</span> <span style="background:${COLOR.firing}2e">&nbsp;alert firing&nbsp;</span> <span style="color:${COLOR.release}">┆ release</span> · times UTC · select a step or a firing for its answers</p>`;

/** One chart with its heading, summary and numbers. */
export function renderChart(c: ChartInput): string {
  return `<figure class="history" id="${c.id}"><figcaption><b>${h(c.metric)}</b> <span class="meta">${h(c.series.judge)} judge${c.threshold !== null ? ` · threshold ${c.threshold}` : ''}</span></figcaption>${chartSvg(c)}<p class="summary" id="${c.id}-summary">${h(chartSummary(c))}</p>${chartTable(c)}</figure>`;
}
