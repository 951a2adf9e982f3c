/**
 * `/probes`: the last run of each probe suite next to the one before — accuracy, robustness R, the
 * GRAMMAR groups, failures by module, errors — the templates worst first with their wrong answers
 * (question, expected, answer, the module blamed, the captured trace's scores and sources), the judge
 * audit and the demographic section. Every text is the service's or the suite's: escaped.
 * @module
 */
import { promqlString } from '../config/display-name.ts';
import type { ProbeMiss, ProbeRun, SuiteRuns } from '../probes/run-view.ts';
import { escapeHtml as h, fmt2 as f2, renderPage, suiteAnchor as anchor, traceRef } from './layout.ts';


function compare(last: ProbeRun, previous: ProbeRun | undefined): string {
  const rows: Array<[string, (r: ProbeRun) => string]> = [
    ['completed', (r) => h(r.completedAt.replace('T', ' ').slice(0, 19))],
    ['queries', (r) => String(r.report.queries)],
    ['accuracy', (r) => f2(r.report.accuracy)],
    ['robustness R', (r) => f2(r.report.robustness)],
    ['groups: robust / non-robust / gap', (r) => `${r.report.groups.robust} / ${r.report.groups.non_robust} / ${r.report.groups.gap}`],
    ['correct / wrong / abstained / error', (r) => `${r.report.outcomes.correct} / ${r.report.outcomes.wrong} / ${r.report.outcomes.abstained} / ${r.report.outcomes.error}`],
    ['failures: retrieval / generator / unknown', (r) => `${r.report.failures.retrieval} / ${r.report.failures.generator} / ${r.report.failures.unknown}`],
    ['errors', (r) => h(Object.entries(r.report.errors).map(([k, n]) => `${k} ${n}`).join(', ') || '–')],
    ['took', (r) => `${(r.durationMs / 1000).toFixed(1)} s`],
  ];
  return `<table><tr><th></th><th>last run</th>${previous ? '<th>the run before</th>' : ''}</tr>${rows.map(([name, of]) => `<tr><th scope="row">${name}</th><td>${of(last)}</td>${previous ? `<td>${of(previous)}</td>` : ''}</tr>`).join('')}</table>`;
}

function miss(m: ProbeMiss, traceUrl: string | undefined): string {
  const scores = m.scores.map((s) => `${h(s.judge)}: ${Object.entries(s.scores).map(([k, v]) => `${h(k)} ${v.toFixed(2)}`).join(', ')}`).join(' · ');
  const sources = m.sources.map((s, i) => `<blockquote><b>[${i + 1}]</b> ${h(s)}</blockquote>`).join('');
  return `<li id="trace-${h(m.traceId)}"><p><b>Q:</b> ${h(m.question)} <span class="meta">(${h(m.variant)})</span></p><p><b>Expected:</b> ${h(m.expected.join(' | '))}</p><p><b>A:</b> ${h(m.answer)}</p>
<p class="meta">${m.outcome}${m.module ? ` · failed in <b>${m.module}</b>` : ''} · trace ${traceRef(m.traceId, traceUrl)} <a class="answer-link" href="/answers/${h(encodeURIComponent(m.traceId))}">why?</a></p>
<details><summary>captured trace: ${m.scores.length > 0 ? h(scores) : 'not captured or not scored'}; ${m.sources.length} sources</summary>${sources || '<p class="meta">No sources came back.</p>'}</details></li>`;
}

function templates(run: ProbeRun, traceUrl: string | undefined): string {
  const table = `<table><tr><th>template</th><th>accuracy</th><th>correct / asked</th><th>robust / non-robust / gap</th></tr>${run.templates.map((t) => `<tr><th scope="row">${h(t.name)}</th><td class="${t.accuracy !== null && t.accuracy < 1 ? 'bad' : ''}">${f2(t.accuracy)}</td><td>${t.correct} / ${t.total}</td><td>${t.groups.robust} / ${t.groups.non_robust} / ${t.groups.gap}</td></tr>`).join('')}</table>`;
  const misses = run.templates
    .filter((t) => t.misses.length > 0)
    .map((t, i) => `<details class="tpl"${i === 0 ? ' open' : ''}><summary><b>${h(t.name)}</b>: ${t.misses.length + t.moreMisses} wrong or abstained</summary><ol class="misses">${t.misses.map((m) => miss(m, traceUrl)).join('')}</ol>${t.moreMisses > 0 ? `<p class="meta">and ${t.moreMisses} more (<code>ragwatch probe run --json</code> lists them all).</p>` : ''}</details>`)
    .join('');
  return `<h3>Templates, worst first</h3>${table}<h3>Wrong answers by template <span class="meta">(the worst one open)</span></h3>${misses}`;
}

function audit(run: ProbeRun): string {
  if (run.report.judges.length === 0) return '<h3>Judge audit</h3><p class="meta">No probe answer was scored by a judge (the service\'s traces were not captured, and no sources came back).</p>';
  return `<h3>Judge audit</h3><p class="meta">Does a metric's "below threshold" flag the answers ground truth says are wrong?</p><table><tr><th>metric</th><th>judge</th><th>scored</th><th>flagged</th><th>wrong</th><th>precision</th><th>recall</th></tr>${run.report.judges.map((j) => `<tr><th scope="row">${h(j.metric)}</th><td>${h(j.judge)}</td><td>${j.n}</td><td>${j.flagged}</td><td>${j.wrong}</td><td>${f2(j.precision)}</td><td>${f2(j.recall)}</td></tr>`).join('')}</table>`;
}

function demographic(run: ProbeRun): string {
  const d = run.report.demographic;
  if (!d) return '';
  return `<h3>Demographic variants</h3><p class="meta">The same questions with the persons' terms swapped (HCAT §4): a gap means the answer depends on who is asked about. Consistency: share of variants answered as the first wording was: ${f2(d.consistency)}.</p><table><tr><th>wording</th><th>answered</th><th>accuracy</th><th>gap</th></tr><tr><th scope="row">first wording</th><td>${d.baseline.answered}</td><td>${f2(d.baseline.accuracy)}</td><td>–</td></tr>${d.variants.map((v) => `<tr><th scope="row">${h(v.variant)}</th><td>${v.answered}</td><td>${f2(v.accuracy)}</td><td class="${v.gap !== null && v.gap < 0 ? 'bad' : ''}">${f2(v.gap)}</td></tr>`).join('')}</table>`;
}

/** The whole page. */
export function renderProbesPage(suites: readonly SuiteRuns[], options: { traceUrlTemplate?: string | undefined } = {}): string {
  const sections = suites.map((s) => {
    const head = `<h2 id="${h(anchor(s.suite))}">Suite ${h(s.suite)} <span class="meta">every ${h(s.every)}</span></h2><p class="meta">Over time: <code>ragwatch_probe_accuracy_ratio{suite=${h(promqlString(s.suite))}}</code></p>`;
    if (!s.last) return `<section>${head}<p>Not run yet: the first run starts probes.firstRunDelayMs after start, then every ${h(s.every)}.</p></section>`;
    return `<section>${head}${compare(s.last, s.previous)}${templates(s.last, options.traceUrlTemplate)}${audit(s.last)}${demographic(s.last)}</section>`;
  });
  return renderPage({
    title: 'probes',
    path: '/probes',
    style: 'section{margin-bottom:2rem}h3{font-size:1rem;margin-top:1.2rem}details.tpl{margin:.4rem 0}details.tpl>summary{cursor:pointer}ol.misses li{margin:.4rem 0 .8rem}ol.misses p{margin:.1rem 0}blockquote{margin:.3rem 0;padding:.3rem .6rem;border-left:3px solid #ccc;background:#fafafa}',
    body: `<h1>Ground-truth probes</h1><p class="meta">Questions whose answers ragwatch knows from the facts (GRAMMAR): each template asks one fact in several wordings. Groups: robust (right in every wording), non-robust (right in some), gap (never right). JSON at <code>/api/probes</code>; docs/probes.md.</p>
${sections.join('\n') || '<p>No probe suite configured: list one in probes.suites (docs/probes.md).</p>'}`,
  });
}
