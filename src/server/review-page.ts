/**
 * The `/review` page: the chosen queue of answers awaiting a human label, one question per label
 * concept (yes / no / unsure), keyboard first (y, n, u; j / k to move), with a progress count. The
 * answers' texts are untrusted and HTML-escaped; the one inline script carries a per-response nonce
 * (CSP) and only POSTs labels as JSON to `/api/labels` on the same origin.
 * @module
 */
import type { ReviewItem } from '../store/review-store.ts';
import { conversationBlock, feedbackLine, highlight } from './examples-page.ts';
import type { FeedbackItem } from '../feedback/types.ts';
import { escapeHtml, renderPage, traceRef } from './layout.ts';

const STYLE = `main{max-width:60rem}details.history{margin:.3rem 0;color:#333}details.history p.turn{margin:.2rem 0 .2rem 1rem}article{border:2px solid #ddd;border-radius:6px;padding:.8rem 1rem;margin:1rem 0}
article.current{border-color:#2563eb}article.done{opacity:.55}.meta{color:#555;font-size:.85rem}
mark.unsupported{background:#ffb3b3;text-decoration:underline wavy #b00}blockquote{margin:.3rem 0;padding:.3rem .6rem;border-left:3px solid #ccc;background:#fafafa;white-space:pre-wrap}
.q{margin:.4rem 0}.q button{margin-left:.4rem}.q .answer{font-weight:bold;margin-left:.6rem}.q.current{background:#eef4ff}
kbd{border:1px solid #bbb;border-radius:3px;padding:0 .3rem;font-size:.85rem}#progress{font-weight:bold}.feedback .fb-negative{color:#b00;font-weight:600}.feedback .fb-positive{color:#070}`;

/** The page; `questions` maps label concept → question. */
export function renderReviewPage(items: readonly ReviewItem[], options: { questions: Readonly<Record<string, string>>; labelled: number; nonce: string; traceUrlTemplate?: string | undefined; feedbackOf?: (traceId: string) => readonly FeedbackItem[] }): string {
  const questions = Object.entries(options.questions);
  const articles = items
    .map((item, i) => {
      const { html } = highlight(item.response, item.unsupported);
      const sources = item.sources.map((s, k) => `<blockquote><b>[${k + 1}]${s.id ? ` ${escapeHtml(s.id)}` : ''}</b> ${escapeHtml(s.content)}</blockquote>`).join('');
      const scores = Object.entries(item.scores).map(([m, v]) => `${escapeHtml(m)} ${v.toFixed(2)}`).join(' · ');
      const qs = questions
        .map(([metric, text]) => `<div class="q" data-metric="${escapeHtml(metric)}">${escapeHtml(text)} <button data-v="1">yes <kbd>y</kbd></button><button data-v="0">no <kbd>n</kbd></button><button data-v="skip">unsure <kbd>u</kbd></button><span class="answer"></span></div>`)
        .join('');
      return `<article data-triplet-id="${escapeHtml(item.tripletId)}" data-index="${i}">
<div class="meta">${escapeHtml(new Date(item.createdMs).toISOString())} · service ${escapeHtml(item.service)} · ${escapeHtml(item.judge)} judge${item.traceId ? ` · trace ${traceRef(item.traceId, options.traceUrlTemplate)} <a class="answer-link" href="/answers/${escapeHtml(encodeURIComponent(item.traceId))}">why?</a>` : ''} · ${scores}${item.needsReview ? ' · <b>the calibrated judge cannot tell</b>' : ''}</div>
${conversationBlock(item)}<p><b>Q:</b> ${escapeHtml(item.query)}</p><div><b>A:</b> ${html}</div>${item.traceId ? feedbackLine(options.feedbackOf?.(item.traceId) ?? []) : ''}
<details open><summary>${item.sources.length} sources</summary>${sources}</details>${qs}</article>`;
    })
    .join('\n');
  return renderPage({
    title: 'review',
    path: '/review',
    style: STYLE,
    script: { nonce: options.nonce, code: SCRIPT },
    body: `<h1>Review answers</h1>
<p class="meta">Keys: <kbd>y</kbd> yes, <kbd>n</kbd> no, <kbd>u</kbd> unsure (skip), <kbd>j</kbd>/<kbd>k</kbd> next / previous answer. Highlighted: what the judge found unsupported. Answers the calibrated judge cannot decide come first, then every score band in turn.</p>
<p><span id="progress">0 / ${items.length}</span> labelled on this page · answers labelled in total: ${options.labelled}</p>
${items.length > 0 ? articles : '<p>Nothing to review: no unlabelled answer is held.</p>'}`,
  });
}

/** Keyboard and buttons → POST /api/labels. Plain ES2020, no dependencies. */
const SCRIPT = `(() => {
  const arts = [...document.querySelectorAll('article')];
  let a = 0, q = 0, done = 0;
  const qs = (i) => [...arts[i].querySelectorAll('.q')];
  const show = () => {
    arts.forEach((el, i) => el.classList.toggle('current', i === a));
    document.querySelectorAll('.q').forEach((el) => el.classList.remove('current'));
    if (arts[a]) { const cur = qs(a)[q]; if (cur) cur.classList.add('current'); arts[a].scrollIntoView({ block: 'nearest' }); }
    document.getElementById('progress').textContent = done + ' / ' + arts.length;
  };
  const answer = async (v) => {
    const art = arts[a]; if (!art) return;
    const el = qs(a)[q]; if (!el) return;
    if (v !== 'skip') {
      const res = await fetch('/api/labels', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tripletId: art.dataset.tripletId, metric: el.dataset.metric, value: Number(v) }) });
      el.querySelector('.answer').textContent = res.ok ? (v === '1' ? 'yes' : 'no') : 'not saved (' + res.status + ')';
      if (!res.ok) return;
    } else el.querySelector('.answer').textContent = 'unsure';
    if (q + 1 < qs(a).length) q++;
    else { art.classList.add('done'); done++; a = Math.min(a + 1, arts.length - 1); q = 0; }
    show();
  };
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === 'y') answer('1'); else if (e.key === 'n') answer('0'); else if (e.key === 'u') answer('skip');
    else if (e.key === 'j') { a = Math.min(a + 1, arts.length - 1); q = 0; show(); }
    else if (e.key === 'k') { a = Math.max(a - 1, 0); q = 0; show(); }
  });
  document.querySelectorAll('.q button').forEach((b) => b.addEventListener('click', () => {
    const art = b.closest('article'); a = arts.indexOf(art); q = qs(a).indexOf(b.closest('.q')); answer(b.dataset.v);
  }));
  show();
})();`;
