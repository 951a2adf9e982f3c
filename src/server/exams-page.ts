/**
 * The `/exams` page (docs/exams.md): per exam, each release's IRT ability θ with its 95 % interval, the
 * regression verdict, accuracy by Bloom category and question word, the item characteristic curves
 * and the exam's information curve — SVG, server-rendered, no scripts.
 * @module
 */
import { probability } from '../exams/irt.ts';
import type { ExamReport } from '../exams/report.ts';
import { escapeHtml, renderPage } from './layout.ts';

const f2 = (v: number) => v.toFixed(2);
const W = 560;
const H = 200;
const x = (theta: number) => 40 + ((theta + 3) / 6) * (W - 60);

function axis(yLabel: string): string {
  const ticks = [-3, -2, -1, 0, 1, 2, 3].map((t) => `<line x1="${x(t)}" x2="${x(t)}" y1="10" y2="${H - 25}" stroke="#eee"/><text x="${x(t) - 5}" y="${H - 10}" class="ax">${t}</text>`).join('');
  return `${ticks}<text x="${W / 2 - 10}" y="${H}" class="ax">θ</text><text x="2" y="12" class="ax">${escapeHtml(yLabel)}</text>`;
}

function abilities(r: ExamReport): string {
  const rowH = 24;
  const h = 30 + r.takers.length * rowH;
  const rows = r.takers.map((t, i) => {
    const y = 20 + i * rowH;
    const lo = Math.max(-3, t.theta - 1.96 * t.se);
    const hi = Math.min(3, t.theta + 1.96 * t.se);
    const bad = r.regression?.regressed && r.regression.taker === t.taker;
    return `<text x="4" y="${y + 4}">${escapeHtml(t.taker)}</text><line x1="${x(lo)}" x2="${x(hi)}" y1="${y}" y2="${y}" stroke="${bad ? '#c00' : '#2a6'}" stroke-width="3"/><circle cx="${x(t.theta)}" cy="${y}" r="5" fill="${bad ? '#c00' : '#2a6'}"/>`;
  });
  const ticks = [-3, -2, -1, 0, 1, 2, 3].map((t) => `<line x1="${x(t)}" x2="${x(t)}" y1="8" y2="${h - 16}" stroke="#eee"/><text x="${x(t) - 5}" y="${h - 2}" class="ax">${t}</text>`).join('');
  return `<svg role="img" aria-label="ability per release" width="${W}" height="${h + 4}" font-size="12">${ticks}${rows.join('')}</svg>`;
}

function curves(r: ExamReport): string {
  const grid = Array.from({ length: 61 }, (_, i) => -3 + i * 0.1);
  const y = (p: number) => H - 25 - p * (H - 40);
  const icc = r.items.map((item) => `<polyline fill="none" stroke="#36c" stroke-opacity="0.25" points="${grid.map((t) => `${x(t).toFixed(1)},${y(probability(t, item)).toFixed(1)}`).join(' ')}"/>`).join('');
  const maxInfo = Math.max(0.01, ...r.information.map((p) => p.information));
  const yi = (v: number) => H - 25 - (v / maxInfo) * (H - 40);
  const info = `<polyline fill="none" stroke="#c60" stroke-width="2" points="${r.information.map((p) => `${x(p.theta).toFixed(1)},${yi(p.information).toFixed(1)}`).join(' ')}"/>`;
  const marks = r.takers.map((t) => `<text x="${x(t.theta) - 3}" y="${H - 27}" fill="#2a6">×</text>`).join('');
  return `<div class="pair"><figure><svg role="img" aria-label="item characteristic curves" width="${W}" height="${H + 4}" font-size="12">${axis('P(correct)')}${icc}${marks}</svg><figcaption>Item characteristic curves: P(correct | θ) of each of the ${r.items.length} questions (3PL).</figcaption></figure>
<figure><svg role="img" aria-label="exam information curve" width="${W}" height="${H + 4}" font-size="12">${axis(`mean information (max ${f2(maxInfo)})`)}${info}${marks}</svg><figcaption>The exam's mean item information: where on the ability scale it tells releases apart (× = the releases).</figcaption></figure></div>`;
}

function categories(r: ExamReport, pick: (t: ExamReport['takers'][number]) => Record<string, { accuracy: number; n: number }>, title: string): string {
  const keys = [...new Set(r.takers.flatMap((t) => Object.keys(pick(t))))].sort();
  if (keys.length === 0) return '';
  const head = `<tr><th>${escapeHtml(title)}</th>${r.takers.map((t) => `<th>${escapeHtml(t.taker)}</th>`).join('')}</tr>`;
  const body = keys.map((k) => `<tr><th scope="row">${escapeHtml(k)}</th>${r.takers.map((t) => {
    const c = pick(t)[k];
    return c ? `<td>${f2(c.accuracy)}<span class="n"> n=${c.n}</span></td>` : '<td class="none">–</td>';
  }).join('')}</tr>`);
  return `<table>${head}${body.join('')}</table>`;
}

/** The whole page. */
export function renderExamsPage(reports: readonly ExamReport[]): string {
  const sections = reports.map((r) => {
    const verdict = r.regression
      ? r.regression.regressed
        ? `<p class="bad">Regression: <b>${escapeHtml(r.regression.taker)}</b> is ${f2(r.regression.drop)} below <b>${escapeHtml(r.regression.previous)}</b> on the ability scale — more than ${r.regression.z} × their combined standard error (${f2(r.regression.z * r.regression.combinedSe)}).</p>`
        : `<p class="ok">No regression: ${escapeHtml(r.regression.taker)} vs ${escapeHtml(r.regression.previous)}, Δθ ${f2(-r.regression.drop)}, within ${r.regression.z} × their combined standard error (${f2(r.regression.z * r.regression.combinedSe)}).</p>`
      : '<p class="meta">One release so far: the regression check needs two.</p>';
    const table = `<table><tr><th>release</th><th>θ</th><th>95 % interval</th><th>accuracy</th><th>graded</th><th>unparsed</th><th>errors</th></tr>${r.takers.map((t) => `<tr><th scope="row">${escapeHtml(t.taker)}</th><td>${f2(t.theta)}</td><td>${f2(Math.max(-3, t.theta - 1.96 * t.se))} – ${f2(Math.min(3, t.theta + 1.96 * t.se))}</td><td>${f2(t.accuracy)}</td><td>${t.answered}</td><td>${t.unparsed}</td><td>${t.errors}</td></tr>`).join('')}</table>`;
    return `<section><h2>${escapeHtml(r.exam)} <span class="meta">v${r.version}, ${r.questions} questions</span></h2>${verdict}${abilities(r)}${table}${curves(r)}<div class="pair">${categories(r, (t) => t.byBloom, 'Bloom category')}${categories(r, (t) => t.byQuestionWord, 'question word')}</div></section>`;
  });
  return renderPage({
    title: 'exams',
    path: '/exams',
    style: `table{margin:.6rem 1.2rem .6rem 0}.n{color:#555;font-size:.75rem}.none{color:#aaa}.ax{fill:#777;font-size:10px}.pair{display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-start}figure{margin:0}figcaption{font-size:.8rem;color:#555;max-width:${W}px}`,
    body: `<h1>Exams per release</h1>
<p class="meta">Multiple-choice exams generated from the service's documents, taken by each release, scored with item response theory (3PL): θ is the ability, comparable across releases that took the same exam version. Unparsed answers (no option could be read) are counted apart, never graded. docs/exams.md.</p>
${sections.join('\n') || '<p>No exam answers yet: <code>ragwatch exam take SUITE.yaml --taker RELEASE</code>, and list the exam in exams.files.</p>'}`,
  });
}
