/**
 * The `/calibration` page: per calibrated (metric, judge), the calibration in use (method, labels,
 * held-out Brier, conformal α and q̂, age) and a reliability diagram drawn as SVG — fraction of answers
 * humans called good against the raw score and against the calibrated probability, in ten bins, next
 * to the diagonal of perfect calibration. Server-rendered, no scripts.
 * @module
 */
import { applyMap } from '../calibration/fit.ts';
import { aucWithInterval, ece, type AucInterval } from '../calibration/measures.ts';
import type { UserLabelledScore } from '../feedback/types.ts';
import type { CalibrationModel, LabelledScore } from '../calibration/types.ts';
import { escapeHtml, renderPage } from './layout.ts';

/** One bin of a reliability diagram. */
export interface ReliabilityBin {
  /** Mean predicted value in the bin. */
  x: number;
  /** Fraction labelled good. */
  y: number;
  n: number;
}

/** Ten equal-width bins of (prediction, label). */
export function reliabilityBins(pred: readonly number[], labels: readonly (0 | 1)[]): ReliabilityBin[] {
  const bins = Array.from({ length: 10 }, () => ({ x: 0, y: 0, n: 0 }));
  pred.forEach((p, i) => {
    const b = bins[Math.min(9, Math.max(0, Math.floor(p * 10)))]!;
    b.x += p;
    b.y += labels[i]!;
    b.n++;
  });
  return bins.filter((b) => b.n > 0).map((b) => ({ x: b.x / b.n, y: b.y / b.n, n: b.n }));
}

const W = 320;
const PAD = 36;
const px = (v: number) => PAD + v * (W - 2 * PAD);
const py = (v: number) => W - PAD - v * (W - 2 * PAD);

/** A reliability diagram: raw (orange) and calibrated (blue) bins, point area ∝ count. */
export function reliabilitySvg(raw: readonly ReliabilityBin[], calibrated: readonly ReliabilityBin[], title: string): string {
  const max = Math.max(1, ...raw.map((b) => b.n), ...calibrated.map((b) => b.n));
  const series = (bins: readonly ReliabilityBin[], color: string, cls: string) =>
    `<polyline class="${cls}" fill="none" stroke="${color}" stroke-width="2" points="${bins.map((b) => `${px(b.x).toFixed(1)},${py(b.y).toFixed(1)}`).join(' ')}"/>` +
    bins.map((b) => `<circle class="${cls}" cx="${px(b.x).toFixed(1)}" cy="${py(b.y).toFixed(1)}" r="${(2 + 5 * Math.sqrt(b.n / max)).toFixed(1)}" fill="${color}"><title>${b.n} answers: predicted ${b.x.toFixed(2)}, good ${b.y.toFixed(2)}</title></circle>`).join('');
  const ticks = [0, 0.5, 1].map((t) => `<text x="${px(t)}" y="${W - PAD + 16}" text-anchor="middle">${t}</text><text x="${PAD - 6}" y="${py(t) + 4}" text-anchor="end">${t}</text>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${W}" width="${W}" height="${W}" role="img" aria-label="${escapeHtml(title)}" font-size="11" font-family="system-ui,sans-serif">
<rect x="${PAD}" y="${PAD}" width="${W - 2 * PAD}" height="${W - 2 * PAD}" fill="#fafafa" stroke="#ccc"/>
<line x1="${px(0)}" y1="${py(0)}" x2="${px(1)}" y2="${py(1)}" stroke="#999" stroke-dasharray="4 4"/>${ticks}
<text x="${W / 2}" y="${W - 4}" text-anchor="middle">predicted P(good)</text><text x="10" y="${W / 2}" transform="rotate(-90 10 ${W / 2})" text-anchor="middle">fraction humans call good</text>
${series(raw, '#e67e22', 'raw')}${series(calibrated, '#2563eb', 'calibrated')}
<text x="${PAD + 6}" y="${PAD + 14}" fill="#e67e22">raw score</text><text x="${PAD + 6}" y="${PAD + 28}" fill="#2563eb">calibrated</text></svg>`;
}

/** One judge metric's agreement with reviewers' labels and with end users' feedback. */
export interface AgreementRow {
  metric: string;
  judge: string;
  /** AUC of the score against the reviewers' labels (the label concepts that calibrate it); null without both classes. */
  reviewers: AucInterval | null;
  /** AUC of the score against the users' feedback (positive = good); null without both classes. */
  users: AucInterval | null;
}

/** Every (metric, judge) with user feedback or reviewer labels, with both agreements. */
export function agreementRows(userPoints: readonly UserLabelledScore[], reviewerPoints: (metric: string, judge: string) => readonly LabelledScore[], extra: ReadonlyArray<{ metric: string; judge: string }> = []): AgreementRow[] {
  const users = new Map<string, { scores: number[]; labels: Array<0 | 1> }>();
  for (const p of userPoints) {
    const key = `${p.metric}\u0000${p.judge}`;
    const g = users.get(key) ?? { scores: [], labels: [] };
    g.scores.push(p.score);
    g.labels.push(p.label);
    users.set(key, g);
  }
  const keys = new Set([...users.keys(), ...extra.map((e) => `${e.metric}\u0000${e.judge}`)]);
  return [...keys].sort().map((key) => {
    const [metric, judge] = key.split('\u0000') as [string, string];
    const u = users.get(key);
    const r = reviewerPoints(metric, judge);
    return { metric, judge, users: u ? aucWithInterval(u.scores, u.labels) : null, reviewers: r.length > 0 ? aucWithInterval(r.map((p) => p.score), r.map((p) => p.label)) : null };
  });
}

function aucCell(a: AucInterval | null, cls: string): string {
  if (!a) return `<td class="${cls}">n/a <span class="meta">(needs good and bad labels)</span></td>`;
  const ci = a.lower === null || a.upper === null ? 'interval n/a' : `${Math.round(a.level * 100)} % CI ${a.lower.toFixed(2)}–${a.upper.toFixed(2)}`;
  return `<td class="${cls}" data-auc="${a.auc.toFixed(4)}" data-good="${a.positives}" data-bad="${a.negatives}">${a.auc.toFixed(2)} <span class="meta">(${ci}; ${a.positives} good, ${a.negatives} bad)</span></td>`;
}

/** The agreement table: each judge metric against reviewers and against users, side by side. */
export function agreementSection(rows: readonly AgreementRow[]): string {
  const body = rows.map((r) => `<tr data-metric="${escapeHtml(r.metric)}" data-judge="${escapeHtml(r.judge)}"><th>${escapeHtml(r.metric)} <span class="meta">(${escapeHtml(r.judge)})</span></th>${aucCell(r.reviewers, 'reviewers')}${aucCell(r.users, 'users')}</tr>`).join('');
  return `<section id="agreement"><h2>Agreement with people</h2>
<p class="meta">ROC-AUC of each judge score against people's verdicts: 1 = the score always ranks good answers above bad ones, 0.5 = chance. Reviewers: the labels given at /review. Users: end users' feedback (thumbs up or a good rating = good; docs/feedback.md), a separate source, never mixed with the reviewers'. DeLong interval.</p>
${rows.length > 0 ? `<table><thead><tr><th>metric</th><th>reviewers</th><th>users</th></tr></thead><tbody>${body}</tbody></table>` : '<p>No labelled answer yet: no reviewer label and no user feedback joined to a scored answer.</p>'}</section>`;
}

/** The page: one section per calibration in use, with its labelled points from the store. */
export function renderCalibrationPage(models: readonly CalibrationModel[], points: (m: CalibrationModel) => LabelledScore[], nowMs: number, agreement?: readonly AgreementRow[]): string {
  const sections = models.map((m) => {
    const pts = points(m);
    const y = pts.map((p) => p.label);
    const raw = pts.map((p) => Math.min(1, Math.max(0, p.score)));
    const cal = pts.map((p) => applyMap(m.map, p.score));
    const e = (p: number[]) => ece(p, y)?.toFixed(3) ?? 'n/a';
    const age = Math.round((nowMs - Date.parse(m.fittedAt)) / 60_000);
    return `<section data-metric="${escapeHtml(m.metric)}" data-judge="${escapeHtml(m.judge)}"><h2>${escapeHtml(m.metric)} (${escapeHtml(m.judge)} judge) ${m.labelMetric === 'user_feedback' ? '← end users’ feedback <span class="meta">(a separate label source: docs/feedback.md)</span>' : `← human label “${escapeHtml(m.labelMetric)}”`}</h2>
<p class="meta">${escapeHtml(m.map.method)} · fitted on ${m.n} labels ${age} min ago · held-out Brier ${m.brier?.toFixed(3) ?? 'n/a'} · conformal α ${m.conformal.alpha}, q̂ ${m.conformal.qhat.toFixed(3)} (n ${m.conformal.n}) · ECE on the ${pts.length} labelled answers held now: raw ${e(raw)}, calibrated ${e(cal)}</p>
${pts.length > 0 ? reliabilitySvg(reliabilityBins(raw, y), reliabilityBins(cal, y), `${m.metric} reliability`) : '<p>No labelled answer held in the store for this metric.</p>'}</section>`;
  });
  return renderPage({
    title: 'calibration',
    path: '/calibration',
    body: `<h1>Judge calibration</h1>
<p class="meta">A judge score means what humans say about answers with that score. Points on the dashed diagonal are perfectly calibrated; orange is the raw score, blue the calibrated probability. Label answers at <a href="/review">/review</a>; JSON at <code>/api/calibration</code>.</p>
${agreement ? agreementSection(agreement) : ''}
${sections.length > 0 ? sections.join('\n') : '<p>No calibration in use yet: label answers at /review (a fit needs calibration.minLabels labels), or load one with calibration.file.</p>'}`,
  });
}
