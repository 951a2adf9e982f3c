/**
 * The answer routes (docs/answers.md), behind the UI's authentication like every page: `/answers`
 * (the search box's target: a trace id or a provider response id → that answer's page),
 * `/answers/<traceId>`, and `GET /api/answers/<traceId>` / `GET /api/answers?responseId=` with the same
 * content as JSON. Reads only what is in memory and one indexed lookup in the embedded store.
 * @module
 */
import type { Hono } from 'hono';
import { renderAnswerPage } from './answer-page.ts';
import { answerView, traceOfResponse, type AnswerSources } from './answer-view.ts';
import { pageHeaders } from './layout.ts';

const TRACE_ID = /^[0-9a-f]{32}$/;
/** A trace id as tracing tools show it: any case, with or without dashes (W3C: 32 hex digits). */
const normalise = (s: string) => s.trim().toLowerCase().replaceAll('-', '');

/** Mounts the answer routes on `app` (the caller guards `/answers*` and `/api/*`). */
export function mountAnswers(app: Hono, sources: () => AnswerSources, traceUrlTemplate: string | undefined): void {
  const badId = 'a trace id is 32 hex digits; a provider response id is given as ?responseId=';
  app.get('/answers', (c) => {
    const raw = (c.req.query('q') ?? c.req.query('traceId') ?? '').trim();
    const responseId = c.req.query('responseId') ?? (raw !== '' && !TRACE_ID.test(normalise(raw)) ? raw : undefined);
    if (responseId !== undefined && responseId !== '') {
      if (responseId.length > 256) return c.text('a response id has at most 256 characters', 400);
      const traceId = traceOfResponse(responseId, sources());
      if (traceId) return c.redirect(`/answers/${traceId}`, 303);
      return c.text(`No answer with response id "${responseId}" is held here (the trail and the judged answers are searched). Try its trace id.`, 404);
    }
    if (TRACE_ID.test(normalise(raw))) return c.redirect(`/answers/${normalise(raw)}`, 303);
    return c.text(`Give a trace id or a response id: /answers?q=… (${badId})`, 400);
  });
  app.get('/answers/:traceId', (c) => {
    const traceId = normalise(c.req.param('traceId'));
    if (!TRACE_ID.test(traceId)) return c.text(badId, 400);
    const view = answerView(traceId, sources());
    return c.html(renderAnswerPage(view, { traceUrlTemplate, nowMs: Date.now() }), view.seen ? 200 : 404, pageHeaders());
  });
  app.get('/api/answers', (c) => {
    const responseId = c.req.query('responseId') ?? '';
    if (responseId === '' || responseId.length > 256) return c.json({ error: 'responseId must be the provider\'s response id (1–256 characters)' }, 400);
    const traceId = traceOfResponse(responseId, sources());
    if (!traceId) return c.json({ error: `no answer with response id "${responseId}" is held here`, responseId }, 404);
    return c.json(answerView(traceId, sources()));
  });
  app.get('/api/answers/:traceId', (c) => {
    const traceId = normalise(c.req.param('traceId'));
    if (!TRACE_ID.test(traceId)) return c.json({ error: badId }, 400);
    const view = answerView(traceId, sources());
    return c.json(view, view.seen ? 200 : 404);
  });
}
