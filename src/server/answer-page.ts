/**
 * `/answers/<traceId>`: one page per answer (docs/answers.md). Why it was judged so — or not at all:
 * the trail stage by stage (spans received, capture, sampling, queue, judge, export) with the decision
 * and reason of each, then for a judged answer the question, the sources, the response with its
 * unsupported claims and tokens highlighted and the verdict of each sentence, every metric's score
 * against its threshold, the judge's explanation, its calls, tokens and time, the conversation's
 * earlier turns, the users' feedback and the reviewers' labels, the release and slice. Server-rendered,
 * no script; every piece of text is HTML-escaped.
 * @module
 */
import type { AnswerJson, AnswerViewJson } from './answer-view.ts';
import { conversationBlock, feedbackLine, highlight } from './examples-page.ts';
import { escapeHtml as h, renderPage, traceRef } from './layout.ts';


const STYLE = `main{max-width:64rem}table.trail td,table.trail th{text-align:left;vertical-align:top}table.trail td.detail{max-width:40rem}
.verdict{font-size:1.05rem;padding:.5rem .8rem;border-radius:6px;background:#eef4fb;border:1px solid #c8dcef}.verdict.stopped{background:#fdf0e6;border-color:#f0c9a8}
.outcome{font-weight:600}.outcome.judged,.outcome.sent,.outcome.assembled,.outcome.sampled,.outcome.queued,.outcome.delivered,.outcome.received{color:#265}
.outcome.flagged,.outcome.failed,.outcome.dropped,.outcome.shed,.outcome.incomplete,.outcome.not_sampled,.outcome.no_generation,.outcome.retry{color:#a00}
article{border:1px solid #ccc;border-radius:6px;padding:.8rem 1rem;margin:1rem 0}blockquote{margin:.3rem 0;padding:.3rem .6rem;border-left:3px solid #ccc;background:#fafafa;white-space:pre-wrap}
.answer{white-space:pre-wrap}mark.unsupported{background:#ffb3b3;text-decoration:underline wavy #b00}ul.claims li.contradicted,ul.claims li.not_in_sources{color:#a00}
table.scores td.flagged{background:#fbd5d5}form.find input{width:22rem}details.history{margin:.3rem 0}details.history p.turn{margin:.2rem 0 .2rem 1rem}`;

const iso = (ms: number) => new Date(ms).toISOString();

/** The search form (also on the front door). */
export function answerSearchForm(): string {
  return `<form class="find" method="get" action="/answers"><label>Find an answer: <input name="q" placeholder="trace id (32 hex digits) or the provider's response id" required maxlength="256"></label> <button type="submit">Open</button></form>`;
}

function trailTable(v: AnswerViewJson): string {
  const rows = v.stages
    .map((s) => `<tr data-stage="${s.stage}"><th scope="row">${s.stage}</th><td><span class="outcome ${h(s.outcome ?? '')}">${h(s.outcome ?? '—')}</span></td><td><code>${h(s.reason ?? '')}</code></td><td class="detail">${h(s.detail ?? (s.outcome === null ? 'nothing recorded here' : ''))}</td></tr>`)
    .join('');
  const events = (v.trail?.events ?? []).map((e) => `<li data-stage="${e.stage}">${h(iso(e.timeMs))} <b>${e.stage}</b> <span class="outcome ${h(e.outcome)}">${h(e.outcome)}</span>${e.reason ? ` <code>${h(e.reason)}</code>` : ''}${e.count !== undefined ? ` ×${e.count}` : ''}${e.detail ? ` — ${h(e.detail)}` : ''}</li>`);
  const dropped = v.trail && v.trail.eventsDropped > 0 ? `<p class="meta">${v.trail.eventsDropped} later decisions not kept (trail.maxEventsPerTrace).</p>` : '';
  return `<h2>Trail</h2><table class="trail"><thead><tr><th>stage</th><th>outcome</th><th>reason</th><th>what happened</th></tr></thead><tbody>${rows}</tbody></table>
${events.length > 0 ? `<details><summary>${events.length} decisions in order</summary><ol class="events">${events.join('')}</ol></details>` : ''}${dropped}`;
}

function metricsTable(a: AnswerJson): string {
  const skipped = Object.entries(a.record.skipped).map(([m, why]) => `<tr><th scope="row">${h(m)}</th><td>–</td><td></td><td>not scored: ${h(why)}</td></tr>`);
  const rows = a.metrics.map(
    (m) => `<tr data-metric="${h(m.metric)}"><th scope="row">${h(m.metric)}</th><td class="${m.flagged ? 'flagged' : ''}">${m.score.toFixed(2)}</td><td>${m.threshold ?? '–'}</td><td>${m.flagged ? '<b class="bad">flagged</b>' : 'above threshold'}</td></tr>`,
  );
  return `<table class="scores"><thead><tr><th>metric (${h(a.record.judge.kind)} judge)</th><th>score</th><th>threshold</th><th></th></tr></thead><tbody>${[...rows, ...skipped].join('')}</tbody></table>`;
}

function explanation(a: AnswerJson): string {
  const d = a.record.details;
  const parts: string[] = [];
  if (d.standaloneQuery) parts.push(`<p>Judged as the standalone question: “${h(d.standaloneQuery)}”.</p>`);
  for (const [m, x] of Object.entries(d.evaluators ?? {})) parts.push(`<p data-metric="${h(m)}"><b>${h(m)}</b>${x.label !== undefined ? ` <i>${h(x.label)}</i>` : ''}${x.reason !== undefined ? `: ${h(x.reason)}` : ''}${x.failed?.length ? `: ${x.failed.map(h).join('; ')}` : ''}</p>`);
  if (d.toxicity?.length) parts.push(`<p class="bad">toxic: ${d.toxicity.map(h).join(', ')}</p>`);
  const pii = Object.entries(d.piiTypes ?? {});
  if (pii.length > 0) parts.push(`<p class="bad">personal data disclosed: ${pii.map(([t, n]) => `${h(t)}${n > 1 ? ` ×${n}` : ''}`).join(', ')}</p>`);
  if (d.uncoveredSources?.length) parts.push(`<p>Least covered source sentences: ${d.uncoveredSources.map((u) => `<q>${h(u)}</q>`).join(' · ')}</p>`);
  if (a.record.diagnosis.length > 0) parts.push(`<p>Diagnosis: ${a.record.diagnosis.map(h).join(', ')}</p>`);
  return parts.length > 0 ? `<h4>The judge's explanation</h4>${parts.join('')}` : '';
}

function claimsList(a: AnswerJson): string {
  const claims = a.record.details.claims;
  if (claims.length === 0) return '';
  // `support`: the local judge's probability that the sources support the claim (absent for the other judges).
  const support = (c: (typeof claims)[number]) => (c as { support?: number }).support;
  const items = claims.map((c) => `<li class="${h(c.verdict ?? 'unjudged')}">${h(c.text)} — <b>${h(c.verdict?.replaceAll('_', ' ') ?? 'no verdict')}</b>${support(c) !== undefined ? ` (support ${support(c)!.toFixed(2)})` : ''}</li>`);
  return `<h4>Verdict of each sentence</h4><ul class="claims">${items.join('')}</ul>`;
}

function renderAnswer(a: AnswerJson, traceUrlTemplate: string | undefined): string {
  const r = a.record;
  const unsupported = [...r.details.claims.filter((c) => c.verdict === 'contradicted' || c.verdict === 'not_in_sources').map((c) => c.text), ...(r.details.unsupportedTokens ?? [])].filter((t) => t.trim() !== '');
  const { html, unmatched } = highlight(a.response, unsupported);
  const extra = unmatched.length > 0 ? `<p>Unsupported: ${unmatched.map((u) => `<mark class="unsupported">${h(u)}</mark>`).join(' · ')}</p>` : '';
  const sources = a.sources.map((s, i) => `<blockquote><b>[${i + 1}]${s.id ? ` ${h(s.id)}` : ''}</b> ${h(s.content)}</blockquote>`).join('');
  const slice = [r.release ?? a.release ? `release ${h((r.release ?? a.release)!)}` : '', r.route ?? a.route ? `route ${h((r.route ?? a.route)!)}` : '', r.model ?? a.model ? `model ${h((r.model ?? a.model)!)}` : '', `stratum ${h(r.stratum)}`, `weight ${Number(r.weight.toFixed(3))}`].filter((x) => x !== '').join(' · ');
  const u = r.usage;
  const cost = `${u.calls} judge call${u.calls === 1 ? '' : 's'}, ${u.inputTokens} input + ${u.outputTokens} output tokens, ${Math.round(u.durationMs)} ms`;
  const lat = a.latency ? ` · answer took ${Math.round(a.latency.durationMs)} ms${a.latency.ttftMs !== undefined ? ` (first token ${Math.round(a.latency.ttftMs)} ms)` : ''}` : '';
  const labels = a.labels.length > 0 ? `<p class="labels"><b>Reviewers:</b> ${a.labels.map((l) => `${h(l.metric)} ${l.value === 1 ? 'good' : 'bad'}${l.reviewer ? ` (${h(l.reviewer)})` : ''}`).join(' · ')}</p>` : '';
  return `<article data-triplet-id="${h(r.tripletId)}" data-judge="${h(r.judge.kind)}">
<div class="meta">${h(r.timestamp)} · service ${h(r.service)} · ${slice} · ${h(r.judge.kind)} judge${r.judge.model ? ` (${h(r.judge.model)})` : ''} · ${cost}${lat} · trace ${traceRef(r.traceId, traceUrlTemplate)}</div>
${conversationBlock(r)}<h3>Question</h3><p class="question">${h(a.query)}</p>
<h3>Response</h3><div class="answer">${html}</div>${extra}
${claimsList(a)}<h3>Scores</h3>${metricsTable(a)}${explanation(a)}${labels}
<details><summary>${a.sources.length} sources</summary>${sources}</details>
</article>`;
}

/** The whole page. */
export function renderAnswerPage(v: AnswerViewJson, options: { traceUrlTemplate?: string | undefined; nowMs: number }): string {
  const head = `<h1>Answer of trace <code>${h(v.traceId)}</code></h1>${answerSearchForm()}<p class="meta">JSON at <code>/api/answers/${h(v.traceId)}</code> · trace ${traceRef(v.traceId, options.traceUrlTemplate)}</p>`;
  const partial = v.partial ? `<p class="meta partial">${h(v.partial)}</p>` : '';
  if (!v.seen) {
    const r = v.recent!;
    const held = r.stats.capacity === 0 ? 'The trail is off here (trail.maxTraces: 0).' : `The trail holds the last ${r.stats.traces} of at most ${r.stats.capacity} traces${r.stats.oldestMs !== undefined ? `, back to ${iso(r.stats.oldestMs)}` : ''}${r.stats.evicted > 0 ? ` (${r.stats.evicted} older ones evicted)` : ''}.`;
    const rows = r.traces.map((t) => `<li><a href="${h(`/answers/${t.traceId}`)}"><code>${h(t.traceId)}</code></a> ${h(iso(t.lastMs))} — ${h(t.stage ?? '')} <span class="outcome ${h(t.outcome ?? '')}">${h(t.outcome ?? '')}</span>${t.reason ? ` <code>${h(t.reason)}</code>` : ''}</li>`);
    return renderPage({
      title: 'answer',
      path: '/answers',
      style: STYLE,
      body: `${head}<p class="verdict stopped" data-verdict="unseen"><b>Not seen.</b> This process received no span of this trace and judged no answer of it — or it is older than what is kept. ${h(held)}</p>${partial}
<p>Check the trace id (32 lower-case hex digits, as your tracing tool shows it); that the service's exporter points at ragwatch (<code>/v1/traces</code>, gRPC 4317); and, in split mode, the collector's or scorer's own page (docs/answers.md).</p>
<h2>Recently seen here</h2>${rows.length > 0 ? `<ul class="recent">${rows.join('')}</ul>` : '<p>Nothing yet.</p>'}`,
    });
  }
  const verdict = v.verdict ? `<p class="verdict${v.verdict.stage === 'judge' || v.verdict.stage === 'export' ? '' : ' stopped'}" data-verdict="${h(v.verdict.outcome)}" data-stage="${h(v.verdict.stage)}"><b>${h(v.verdict.stage)}: <span class="outcome ${h(v.verdict.outcome)}">${h(v.verdict.outcome)}</span></b>${v.verdict.reason ? ` <code>${h(v.verdict.reason)}</code>` : ''}${v.verdict.detail ? ` — ${h(v.verdict.detail)}` : ''}</p>` : '';
  const answers = v.answers.map((a) => renderAnswer(a, options.traceUrlTemplate)).join('\n');
  const feedback = v.feedback.length > 0 ? `<h2>Users' feedback</h2>${feedbackLine(v.feedback)}` : '';
  const judgedNote = v.answers.length === 0 && v.verdict?.stage === 'judge' ? '<p class="meta">The judged answer is not in the embedded store (store.maxAnswers, or judged by another process).</p>' : '';
  return renderPage({
    title: 'answer',
    path: '/answers',
    style: STYLE,
    body: `${head}${verdict}${partial}${trailTable(v)}${answers.length > 0 ? `<h2>Judged answer${v.answers.length > 1 ? 's' : ''}</h2>${answers}` : judgedNote}${feedback}`,
  });
}
