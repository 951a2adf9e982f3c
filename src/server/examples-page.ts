/**
 * The `/examples` page: recent low-scoring answers with their unsupported claims highlighted, the
 * sources, the scores and the trace id. Server-rendered, no scripts; every piece of text is
 * untrusted (it comes from the monitored service) and is HTML-escaped.
 * @module
 */
import type { Example } from '../metrics/examples.ts';
import type { ScoreRecord } from '../triplet.ts';
import type { FeedbackItem } from '../feedback/types.ts';
import { escapeHtml, renderPage, traceRef } from './layout.ts';

/** Texts of the example's unsupported claims and tokens (claims not supported by the sources, embedded-judge tokens). */
export function unsupportedSpans(example: Example): string[] {
  const claims = example.record.details.claims.filter((c) => c.verdict === 'contradicted' || c.verdict === 'not_in_sources').map((c) => c.text);
  return [...claims, ...(example.record.details.unsupportedTokens ?? [])].filter((t) => t.trim() !== '');
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** True when `needle` sits at `i` in `text` as whole words: no letter or digit runs on at either edge. */
function atWordBoundary(text: string, i: number, length: number): boolean {
  const before = text[i - 1];
  const after = text[i + length];
  return !(before !== undefined && WORD_CHAR.test(before) && WORD_CHAR.test(text[i]!)) && !(after !== undefined && WORD_CHAR.test(after) && WORD_CHAR.test(text[i + length - 1]!));
}

/** Start offsets of `needle` in `haystack` as whole words (never inside a word: "to" is not in "Atoms"). */
function wholeWordMatches(haystack: string, needle: string, text: string): number[] {
  const out: number[] = [];
  for (let i = haystack.indexOf(needle); needle !== '' && i >= 0; i = haystack.indexOf(needle, i + 1)) {
    if (atWordBoundary(text, i, needle.length) && (out.length === 0 || i >= out[out.length - 1]! + needle.length)) out.push(i);
  }
  return out;
}

const foldQuotes = (s: string) => s.replace(/[“”]/gu, '"');

/**
 * The response with every whole-word occurrence of `spans` wrapped in `<mark class="unsupported">`,
 * escaped. Exact case first; a span found only in another case ("the tower" for "The tower") is
 * marked case-insensitively. Returns the spans found nowhere in the text too (a claim is often a
 * paraphrase), to list apart.
 */
export function highlight(text: string, spans: readonly string[]): { html: string; unmatched: string[] } {
  const ranges: Array<[number, number]> = [];
  const unmatched: string[] = [];
  // The LLM judge reads (and so writes back) double quotes as typographic ones: match them as the same.
  const folded = foldQuotes(text);
  const lower = folded.toLowerCase();
  for (const span of spans) {
    const needle = foldQuotes(span.trim().replace(/[.!?]+$/, ''));
    let found = wholeWordMatches(folded, needle, text);
    // toLowerCase keeps offsets only when no character changes length (e.g. "İ"): then fall back.
    if (found.length === 0 && lower.length === text.length) found = wholeWordMatches(lower, needle.toLowerCase(), text);
    for (const i of found) ranges.push([i, i + needle.length]);
    if (found.length === 0) unmatched.push(span);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  let html = '';
  let pos = 0;
  for (const [start, end] of ranges) {
    if (end <= pos) continue;
    const s = Math.max(start, pos);
    html += `${escapeHtml(text.slice(pos, s))}<mark class="unsupported">${escapeHtml(text.slice(s, end))}</mark>`;
    pos = end;
  }
  return { html: html + escapeHtml(text.slice(pos)), unmatched };
}

const STYLE = `main{max-width:60rem}details.history{margin:.3rem 0;color:#333}details.history p.turn{margin:.2rem 0 .2rem 1rem}article{border:1px solid #ccc;border-radius:6px;padding:.8rem 1rem;margin:1rem 0}
.meta{color:#555;font-size:.85rem}.scores span{display:inline-block;margin:.1rem .5rem .1rem 0;padding:0 .4rem;border-radius:3px;background:#eee}
.scores .low{background:#fbd5d5}mark.unsupported{background:#ffb3b3;text-decoration:underline wavy #b00}
details{margin-top:.4rem}blockquote{margin:.3rem 0;padding:.3rem .6rem;border-left:3px solid #ccc;background:#fafafa;white-space:pre-wrap}
.answer{white-space:pre-wrap}.risk{color:#900;font-weight:600}ul.evaluators{margin:.3rem 0;padding-left:1.2rem;font-size:.9rem}.feedback .fb-negative{color:#b00;font-weight:600}.feedback .fb-positive{color:#070}`;

/** End users' feedback on an answer, next to the judge's verdict (`<p class="feedback">`); empty without any. */
export function feedbackLine(items: readonly FeedbackItem[]): string {
  if (items.length === 0) return '';
  const one = (f: FeedbackItem) => {
    const what = f.kind === 'thumbs' ? (f.value >= 1 ? 'thumbs up' : 'thumbs down') : `rated ${f.value}/5`;
    return `<span class="fb-${f.polarity}" data-polarity="${f.polarity}">${what}${f.comment ? `: “${escapeHtml(f.comment)}”` : ''}</span>`;
  };
  return `<p class="feedback"><b>Users:</b> ${items.slice(0, 5).map(one).join(' · ')}${items.length > 5 ? ` · ${items.length - 5} more` : ''}</p>`;
}

/** Options of {@link renderExamplesPage}; all optional. */
export interface ExamplesPageOptions {
  /** Filter shown in the heading. */
  metric?: string;
  below?: number;
  /** Thresholds per metric, to mark low scores. */
  thresholds?: Readonly<Record<string, number>>;
  /** `server.traceUrlTemplate`: trace ids link to the tracing backend. */
  traceUrlTemplate?: string | undefined;
  /** End users' feedback on a trace (shown next to the verdict). */
  feedbackOf?: (traceId: string) => readonly FeedbackItem[];
  /** Service filter shown in the heading. */
  service?: string;
  /** The window asked for (a history chart's step or firing), milliseconds since the epoch. */
  fromMs?: number;
  toMs?: number;
  /** Time of the oldest answer the buffer holds: a window before it is said to be partly gone. */
  oldestMs?: number | undefined;
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** The window line: what was asked, and whether the buffer still holds all of it. */
function windowLine(o: ExamplesPageOptions): string {
  if (o.fromMs === undefined && o.toMs === undefined) return '';
  const asked = `${o.fromMs !== undefined ? `from ${iso(o.fromMs)} ` : ''}${o.toMs !== undefined ? `to ${iso(o.toMs)}` : ''}`.trim();
  const gone = o.fromMs !== undefined && (o.oldestMs === undefined || o.fromMs < o.oldestMs) ? ` The buffer keeps the most recent low-scoring answers (metrics.examplesMaxRecords)${o.oldestMs !== undefined ? `, back to ${iso(o.oldestMs)}` : ''}: older answers of this window are no longer held.` : '';
  return `<p class="meta window">Answers ${escapeHtml(asked)}${o.service ? ` of service ${escapeHtml(o.service)}` : ''}.${escapeHtml(gone)}</p>`;
}

function renderExample(e: Example, thresholds: Readonly<Record<string, number>>, traceUrl: string | undefined, feedback: readonly FeedbackItem[] = []): string {
  const r = e.record;
  const { html, unmatched } = highlight(e.response, unsupportedSpans(e));
  const scores = Object.entries(r.scores)
    .map(([m, v]) => {
      const low = thresholds[m] !== undefined && v !== undefined && v < thresholds[m];
      return `<span class="${low ? 'low' : ''}" data-metric="${escapeHtml(m)}">${escapeHtml(m)} ${(v ?? 0).toFixed(2)}</span>`;
    })
    .join('');
  const extra = unmatched.length > 0 ? `<p>Unsupported claims: ${unmatched.map((u) => `<mark class="unsupported">${escapeHtml(u)}</mark>`).join(' · ')}</p>` : '';
  // The local judge's per-sentence support: which sentence pulled claim_support down, and by how much.
  const judged = r.details.claims.filter((c) => c.support !== undefined);
  const sentences = judged.length > 1 ? `<p class="sentences">Support of each sentence: ${judged.map((c) => `<span class="${c.verdict === 'not_in_sources' ? 'low' : ''}">${escapeHtml(c.text)} <b>${c.support!.toFixed(2)}</b></span>`).join(' · ')}</p>` : '';
  const uncovered = r.details.uncoveredSources ?? [];
  const missing = uncovered.length > 0 && (r.scores.completeness ?? 1) < (thresholds.completeness ?? 0) ? `<p class="uncovered">Least covered source sentences: ${uncovered.map((u) => `<q>${escapeHtml(u)}</q>`).join(' · ')}</p>` : '';
  const risks = [
    ...Object.entries(r.details.piiTypes ?? {}).map(([type, n]) => `personal data disclosed: ${escapeHtml(type)}${n > 1 ? ` ×${n}` : ''}`),
    ...(r.details.toxicity?.length ? [`toxic: ${r.details.toxicity.map(escapeHtml).join(', ')}`] : []),
  ];
  const risk = risks.length > 0 ? `<p class="risk">${risks.join(' · ')}</p>` : '';
  // The configured evaluators' say: an llm evaluator's label and reason, a check's failed rules.
  const verdicts = Object.entries(r.details.evaluators ?? {}).map(
    ([m, x]) => `<li data-metric="${escapeHtml(m)}"><b>${escapeHtml(m)}</b>${x.label !== undefined ? ` <i>${escapeHtml(x.label)}</i>` : ''}${x.reason !== undefined ? `: ${escapeHtml(x.reason)}` : ''}${x.failed?.length ? `: ${x.failed.map(escapeHtml).join('; ')}` : ''}</li>`,
  );
  const evaluators = verdicts.length > 0 ? `<ul class="evaluators">${verdicts.join('')}</ul>` : '';
  const sources = e.sources.map((s, i) => `<blockquote><b>[${i + 1}]${s.id ? ` ${escapeHtml(s.id)}` : ''}</b> ${escapeHtml(s.content)}</blockquote>`).join('');
  return `<article data-trace-id="${escapeHtml(r.traceId)}">
<div class="meta">${escapeHtml(r.timestamp)} · service ${escapeHtml(r.service)}${e.route ? ` · route ${escapeHtml(e.route)}` : ''} · ${escapeHtml(r.judge.kind)} judge${r.judge.model ? ` (${escapeHtml(r.judge.model)})` : ''} · trace ${traceRef(r.traceId, traceUrl)} <a class="answer-link" href="/answers/${escapeHtml(encodeURIComponent(r.traceId))}">why?</a></div>
${conversationBlock(r)}<p><b>Q:</b> ${escapeHtml(e.query)}</p>
<div class="answer"><b>A:</b> ${html}</div>${extra}${sentences}${missing}${risk}${evaluators}
<div class="scores">${scores}</div>${feedbackLine(feedback)}
<details><summary>${e.sources.length} sources</summary>${sources}</details>
</article>`;
}

/** A chat turn's earlier messages, collapsed, with a link to the conversation's judged turns. */
export function conversationBlock(r: Pick<ScoreRecord, 'conversation'>): string {
  const c = r.conversation;
  if (!c) return '';
  const who = c.id !== undefined ? `conversation <a href="/examples?conversation=${encodeURIComponent(c.id)}"><code>${escapeHtml(c.id)}</code></a>` : 'an anonymous conversation';
  const turns = c.history.map((t) => `<p class="turn ${t.role}"><b>${t.role === 'user' ? 'User' : 'Assistant'}:</b> ${escapeHtml(t.content)}</p>`).join('');
  const cut = c.cut ? ` (${c.cut.turns} older messages not kept)` : '';
  const typed = c.typedQuery !== undefined ? `<p class="meta">Typed as: “${escapeHtml(c.typedQuery)}” — judged as the app's standalone question below.</p>` : '';
  return `<details class="history"><summary>Turn ${c.turn} of ${who}: ${c.history.length} earlier messages${cut}</summary>${turns}</details>${typed}`;
}

/** The whole page. */
export function renderExamplesPage(examples: readonly Example[], options: ExamplesPageOptions = {}): string {
  const filter = options.metric ? ` — ${escapeHtml(options.metric)}${options.below !== undefined ? ` below ${options.below}` : ''}` : '';
  const body = examples.length > 0 ? examples.map((e) => renderExample(e, options.thresholds ?? {}, options.traceUrlTemplate, options.feedbackOf?.(e.record.traceId))).join('\n') : '<p>No low-scoring examples in the buffer.</p>';
  return renderPage({
    title: 'examples',
    path: '/examples',
    style: STYLE,
    body: `<h1>Recent low-scoring answers${filter}</h1>
${windowLine(options)}<p class="meta">Highlighted: claims the judge found unsupported by the sources. ${examples.length} shown; JSON at <code>/api/examples</code>.</p>
${body}`,
  });
}
