/**
 * `/`: the front door. What ragwatch sees now, from what is in memory (no refit, clustering or store
 * scan on the request): the alerts firing of every kind with a link to their evidence, per service
 * the windowed means of the alerting metrics against their thresholds, the last probe run of each
 * suite, the calibrations' age and coverage, the exams' regression verdicts, the pipeline's health
 * (accounting identity, drops, queue, lag), and a link to every page. Below the current means, the
 * history: a chart per metric over the chosen range, read from the embedded store. Reloads itself every 30 s.
 * @module
 */
import type { CalibrationModel } from '../calibration/types.ts';
import type { ChangeSeriesStatus } from '../change/monitor.ts';
import type { ExamReport } from '../exams/report.ts';
import type { AccountingSnapshot } from '../metrics/accounting.ts';
import type { JudgeFailureCount } from '../metrics/judge-failures.ts';
import type { QualityStatus } from '../metrics/score-metrics.ts';
import type { AlertNotice } from '../metrics/notifier.ts';
import type { SuiteRuns } from '../probes/run-view.ts';
import type { ServiceReleases, SliceStatus } from '../slices/types.ts';
import type { SloAlert } from '../slo/monitor.ts';
import type { HistoryView } from '../history/types.ts';
import { HISTORY_SCRIPT, HISTORY_STYLE, historySection, type HistoryRange } from './history-section.ts';
import { releasesSection, sliceAlertItems } from './releases-section.ts';
import { escapeHtml as h, fmt2 as f2, renderPage, suiteAnchor as anchor } from './layout.ts';
import { answerSearchForm } from './answer-page.ts';

/** Everything the front door shows, gathered by the route. */
export interface FrontDoor {
  nowMs: number;
  ready: boolean;
  status: QualityStatus & { change?: ChangeSeriesStatus[]; slo?: SloAlert[]; slices?: SliceStatus[] };
  /** Each service's live releases side by side with their verdicts (the slice monitor's). */
  releases: ServiceReleases[];
  /** Metrics with an alert rule (the alerting metrics). */
  alerting: ReadonlySet<string>;
  probes: SuiteRuns[];
  probeAlerts: AlertNotice[];
  calibrations: CalibrationModel[];
  exams: ExamReport[];
  accounting?: AccountingSnapshot;
  /** The LLM judge's steps without a verdict, by step and reason, newest first. */
  judgeFailures?: JudgeFailureCount[];
  /** Sampled triplets queued for the judge (the transport queue), and its capacity. */
  queue?: { size: number; capacity: number };
  /** Kafka: messages behind the high watermark, summed over partitions. */
  lagMessages?: number;
  /** Quality over time (the charts); absent where another process keeps it. */
  history?: HistoryView | undefined;
  /** The charts' range (the chooser). Default 24h. */
  range?: HistoryRange;
  /** The response's script nonce: with it, a range dragged across a chart opens its examples. */
  nonce?: string;
}

const pct = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `${(v * 100).toFixed(0)} %`);
const ago = (nowMs: number, ms: number) => {
  const s = Math.max(0, Math.round((nowMs - ms) / 1000));
  return s < 120 ? `${s} s ago` : s < 7200 ? `${Math.round(s / 60)} min ago` : s < 172_800 ? `${Math.round(s / 3600)} h ago` : `${Math.round(s / 86_400)} days ago`;
};
const q = encodeURIComponent;
const examplesLink = (metric: string, below: number, service: string, sinceMs?: number) => `/examples?metric=${q(metric)}&below=${below}&service=${q(service)}${sinceMs ? `&since=${Math.floor(sinceMs)}` : ''}`;

/** One line per alert firing (or pending), worst kinds first. */
function alerts(d: FrontDoor): string {
  const items: string[] = [];
  for (const a of d.status.alerts) {
    items.push(`<li class="${a.state === 'firing' ? 'bad' : 'warn'}"><b>${h(a.name)}</b> ${a.state} (${h(a.severity)}): ${h(a.metric)} mean ${f2(a.value)} below ${f2(a.threshold)} for service <b>${h(a.service)}</b> (${h(a.judge)} judge, n = ${a.samples}), since ${ago(d.nowMs, a.firingSinceMs ?? a.activeSinceMs)} · <a href="${h(examplesLink(a.metric, a.threshold, a.service))}">the low answers</a></li>`);
  }
  for (const c of d.status.change ?? []) {
    if (c.state !== 'firing') continue;
    items.push(`<li class="bad"><b>change (${h(c.tier)})</b>: ${h(c.metric)} flagged share ${pct(c.recent)} (n = ${c.recentSamples}) against its normal ${pct(c.baseline)} (n = ${c.baselineSamples}), z ${f2(c.z)}, service <b>${h(c.service)}</b>${c.firingSinceMs ? `, since ${ago(d.nowMs, c.firingSinceMs)}` : ''} · <a href="${h(examplesLink(c.metric, 1, c.service, c.firingSinceMs))}">answers since</a></li>`);
  }
  items.push(...sliceAlertItems(d.status.slices ?? [], (ms) => ago(d.nowMs, ms)));
  for (const s of d.status.slo ?? []) {
    items.push(`<li class="bad"><b>SLO burn (${h(s.severity)})</b>: ${h(s.metric)} bad share ${pct(s.badShare)} for service <b>${h(s.service)}</b> (${h(s.judge)} judge), since ${ago(d.nowMs, s.firingSinceMs)}</li>`);
  }
  for (const p of d.probeAlerts) {
    items.push(`<li class="bad"><b>${h(p.labels.alertname ?? 'probe alert')}</b>: ${h(p.annotations.summary ?? '')} · <a href="/probes#${h(anchor(p.labels.suite ?? ''))}">the run</a></li>`);
  }
  for (const e of d.exams) {
    if (e.regression?.regressed) items.push(`<li class="bad"><b>RagwatchExamRegression</b>: release ${h(e.regression.taker)} is ${f2(e.regression.drop)} below ${h(e.regression.previous)} on exam ${h(e.exam)} · <a href="/exams">the exam</a></li>`);
  }
  const diagnosis = d.status.diagnosis.map((x) => `<li>${h(x.component)}: ${h(x.text)}</li>`).join('');
  return `<section id="alerts"><h2>Alerts</h2>${items.length > 0 ? `<ul class="alerts">${items.join('')}</ul>` : '<p class="ok">No alert is firing.</p>'}${diagnosis ? `<p class="meta">Diagnosis:</p><ul>${diagnosis}</ul>` : ''}</section>`;
}

/** Per service: each alerting metric's windowed mean against its threshold, as a bar. */
function services(d: FrontDoor): string {
  const means = d.status.means.filter((m) => d.alerting.has(m.metric));
  const byService = new Map<string, typeof means>();
  for (const m of means) byService.set(m.service, [...(byService.get(m.service) ?? []), m]);
  const change = new Map((d.status.change ?? []).filter((c) => c.tier === 'page').map((c) => [`${c.service}\u0000${c.metric}\u0000${c.judge}`, c]));
  const minutes = Math.round(d.status.windowMs / 60_000);
  if (byService.size === 0) return `<section id="services"><h2>Services</h2><p>Nothing scored in the last ${minutes} min yet. Send traces to the OTLP port (docs/capture.md).</p></section>`;
  const tables = [...byService].sort(([a], [b]) => a.localeCompare(b)).map(([service, rows]) => {
    const body = rows
      .sort((a, b) => a.metric.localeCompare(b.metric) || a.judge.localeCompare(b.judge))
      .map((m) => {
        const below = m.mean !== null && m.threshold !== null && m.mean < m.threshold;
        const c = change.get(`${service}\u0000${m.metric}\u0000${m.judge}`);
        const bar = m.mean === null ? '' : `<svg width="120" height="10" role="img" aria-label="mean ${f2(m.mean)}"><rect width="120" height="10" fill="#eee"/><rect width="${(120 * m.mean).toFixed(1)}" height="10" fill="${below ? '#c33' : '#3a8'}"/>${m.threshold !== null ? `<rect x="${(120 * m.threshold - 1.5).toFixed(1)}" y="0" width="3" height="10" fill="#111"/>` : ''}</svg>`;
        const normal = !c ? '–' : c.state === 'no_baseline' ? '<span class="meta">no baseline yet</span>' : c.state === 'firing' ? '<span class="bad">dropped</span>' : `${pct(c.baseline)} flagged`;
        return `<tr><th scope="row">${h(m.metric)}</th><td>${h(m.judge)}</td><td class="${below ? 'bad' : ''}">${f2(m.mean)}</td><td>${f2(m.threshold)}</td><td>${bar}</td><td>${m.samples}</td><td>${normal}</td><td><a href="${h(examplesLink(m.metric, m.threshold ?? 1, service))}">answers</a></td></tr>`;
      })
      .join('');
    return `<h3>${h(service)}</h3><table class="svc"><tr><th>metric</th><th>judge</th><th>mean</th><th>threshold</th><th></th><th>answers</th><th>normal</th><th></th></tr>${body}</table>`;
  });
  return `<section id="services"><h2>Services <span class="meta">(weighted means over the last ${minutes} min; the black mark is the threshold)</span></h2>${tables.join('')}</section>`;
}

function probes(d: FrontDoor): string {
  if (d.probes.length === 0) return '<section id="probes"><h2>Probes</h2><p class="meta">No probe suite configured (probes.suites; docs/probes.md).</p></section>';
  const rows = d.probes.map((s) => {
    const r = s.last?.report;
    const prev = s.previous?.report;
    const delta = r?.accuracy != null && prev?.accuracy != null ? ` <span class="meta">(${r.accuracy - prev.accuracy >= 0 ? '+' : ''}${(r.accuracy - prev.accuracy).toFixed(2)})</span>` : '';
    return `<tr><th scope="row"><a href="/probes#${h(anchor(s.suite))}">${h(s.suite)}</a></th><td>${s.last ? ago(d.nowMs, Date.parse(s.last.completedAt)) : '<span class="meta">not run yet</span>'}</td><td>${f2(r?.accuracy)}${delta}</td><td>${f2(r?.robustness)}</td><td>${r ? r.outcomes.wrong + r.outcomes.abstained : '–'}</td><td>${r?.outcomes.error ?? '–'}</td><td>${h(s.every)}</td></tr>`;
  });
  return `<section id="probes"><h2>Probes <span class="meta">(ground truth: the last run of each suite)</span></h2><table><tr><th>suite</th><th>last run</th><th>accuracy</th><th>R</th><th>wrong</th><th>errors</th><th>every</th></tr>${rows.join('')}</table></section>`;
}

function calibration(d: FrontDoor): string {
  if (d.calibrations.length === 0) return '<section id="calibration"><h2>Calibration</h2><p class="meta">No calibration in use: scores are the judges\' raw scores. Label answers at <a href="/review">/review</a>.</p></section>';
  const rows = d.calibrations.map((m) => `<tr><th scope="row">${h(m.metric)}</th><td>${h(m.judge)}</td><td>${ago(d.nowMs, Date.parse(m.fittedAt))}</td><td>${m.n}</td><td>${pct(1 - m.conformal.alpha)}</td><td>${f2(m.brier)}</td></tr>`);
  return `<section id="calibration"><h2>Calibration</h2><table><tr><th>metric</th><th>judge</th><th>fitted</th><th>labels</th><th>coverage (1 − α)</th><th>Brier</th></tr>${rows.join('')}</table></section>`;
}

function exams(d: FrontDoor): string {
  if (d.exams.length === 0) return '<section id="exams"><h2>Exams</h2><p class="meta">No exam taken yet (docs/exams.md).</p></section>';
  const rows = d.exams.map((e) => `<tr><th scope="row">${h(e.exam)}</th><td>v${e.version}</td><td>${e.takers.length}</td><td>${!e.regression ? '<span class="meta">one release so far</span>' : e.regression.regressed ? `<span class="bad">${h(e.regression.taker)} regressed vs ${h(e.regression.previous)}</span>` : `<span class="ok">${h(e.regression.taker)} holds vs ${h(e.regression.previous)}</span>`}</td></tr>`);
  return `<section id="exams"><h2>Exams</h2><table><tr><th>exam</th><th>version</th><th>releases</th><th>latest verdict</th></tr>${rows.join('')}</table></section>`;
}

/** The LLM judge's failures by reason, and the last one: a judge that cannot follow the protocol is visible here. */
function judgeFailures(d: FrontDoor): string {
  const f = d.judgeFailures ?? [];
  if (f.length === 0) return '';
  const last = f[0]!;
  return `<p class="bad" id="judge-failures">LLM judge steps without a verdict: ${f.slice(0, 8).map((x) => `${h(x.reason)} (${h(x.step)}) ${x.count}`).join(' · ')}. Last: <b>${h(last.reason)}</b> in ${h(last.step)}, ${ago(d.nowMs, last.lastMs)} (<code>ragwatch_judge_failures_total</code>; docs/judges.md).</p>`;
}

function pipeline(d: FrontDoor): string {
  const a = d.accounting;
  if (!a) return '';
  const balanced = a.residualCaptured === 0 && a.residualSampled === 0;
  const drops = Object.entries(a.dropped).filter(([, n]) => n > 0).sort((x, y) => y[1] - x[1]);
  const dropTotal = drops.reduce((s, [, n]) => s + n, 0);
  return `<section id="pipeline"><h2>Pipeline</h2><table><tr><th>captured</th><th>sampled</th><th>scored</th><th>failed</th><th>in flight</th><th>dropped</th>${d.queue ? '<th>queue</th>' : ''}${d.lagMessages !== undefined ? '<th>Kafka lag</th>' : ''}<th>identity</th></tr>
<tr><td>${a.captured}</td><td>${a.sampled}</td><td>${a.scored}</td><td>${a.failed}</td><td>${a.inFlight}</td><td>${dropTotal}</td>${d.queue ? `<td>${d.queue.size} / ${d.queue.capacity}</td>` : ''}${d.lagMessages !== undefined ? `<td>${d.lagMessages}</td>` : ''}<td class="${balanced ? 'ok' : 'bad'}">${balanced ? 'balanced' : `off by ${a.residualCaptured} / ${a.residualSampled}`}</td></tr></table>
${drops.length > 0 ? `<p class="meta">Drops by stage/reason: ${drops.slice(0, 8).map(([k, n]) => `${h(k)} ${n}`).join(' · ')}</p>` : ''}${judgeFailures(d)}<p class="meta">Judge ${d.ready ? 'ready' : '<b>starting</b>'}. captured = sampled + not sampled; sampled = scored + failed + dropped after sampling + in flight + in topic (docs/operations.md).</p></section>`;
}

const PAGES: ReadonlyArray<readonly [string, string]> = [
  ['/examples', 'the recent low-scoring answers, with the unsupported claims highlighted'],
  ['/review', 'label answers for calibration (keyboard: y / n / u)'],
  ['/calibration', 'reliability diagrams of the calibrated judges'],
  ['/weaknesses', 'where the service fails: topics × question types, routes, models, releases'],
  ['/probes', 'ground-truth probe runs: templates, wrong answers, the judge audit'],
  ['/exams', 'exams per release, IRT ability and regressions'],
  ['/api/status', 'all of this as JSON'],
  ['/metrics', 'Prometheus'],
];

/** The whole page. */
export function renderHomePage(d: FrontDoor): string {
  const pages = `<section id="pages"><h2>Pages</h2><ul class="pages">${PAGES.map(([path, text]) => `<li><a href="${path}">${path}</a> — ${h(text)}</li>`).join('')}</ul></section>`;
  return renderPage({
    title: 'overview',
    path: '/',
    refreshS: 30,
    ...(d.nonce ? { script: { nonce: d.nonce, code: HISTORY_SCRIPT } } : {}),
    style: HISTORY_STYLE + 'form.find{margin:.4rem 0 .8rem}form.find input{width:24rem}ul.alerts li{margin:.25rem 0}table.svc{margin-bottom:.6rem}h3{font-size:1rem;margin:.9rem 0 .3rem}td svg{vertical-align:middle}ul.pages li{margin:.15rem 0}.grid{display:flex;flex-wrap:wrap;gap:0 2.5rem}.grid>section{flex:1 1 30rem}',
    body: `<h1>What ragwatch sees now</h1><p class="meta">As of ${h(new Date(d.nowMs).toISOString())}; this page reloads every 30 s.</p>
${answerSearchForm()}${alerts(d)}${services(d)}${historySection(d.history, { nowMs: d.nowMs, range: d.range ?? '24h' })}${releasesSection(d.releases, (ms) => ago(d.nowMs, ms))}<div class="grid">${probes(d)}${calibration(d)}</div><div class="grid">${exams(d)}${pipeline(d)}</div>${pages}`,
  });
}
