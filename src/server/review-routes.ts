/**
 * Human review routes, mounted behind the UI's authentication: `GET /review` (the page), `GET
 * /calibration` (reliability diagrams) and `GET /api/calibration`,
 * `GET /api/review` (the queue as JSON) and `POST /api/labels` (`{tripletId, metric, value: 0|1,
 * reviewer?}`) for the page, feedback pipelines and other labelling tools. Bad input gets a 4xx with
 * the reason; without a store (it could not be opened) they answer 503 naming `store.dataDir`.
 * @module
 */
import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import type { ReviewStore } from '../store/review-store.ts';
import type { CalibrationMonitor } from '../calibration/monitor.ts';
import type { Refitter } from '../calibration/refit.ts';
import type { CalibrationModel, LabelledScore } from '../calibration/types.ts';
import { agreementRows, renderCalibrationPage } from './calibration-page.ts';
import type { FeedbackView } from '../feedback/types.ts';
import { newNonce, pageHeaders } from './layout.ts';
import { renderReviewPage } from './review-page.ts';

/** Largest labels request body, bytes. */
const MAX_LABEL_BYTES = 16 * 1024;
const QUEUE_PAGE = 20;

/** Mounts the routes; `concepts` are the label concepts accepted (the review questions and calibration.labelMetrics). */
export function mountReview(
  app: Hono,
  store: ReviewStore | undefined,
  options: { questions: Readonly<Record<string, string>>; concepts: readonly string[]; calibration?: CalibrationMonitor | undefined; refitter?: Refitter | undefined; traceUrlTemplate?: string | undefined; feedback?: FeedbackView | undefined },
): void {
  const unavailable = { error: 'the review store is not open (config key "store.dataDir", env RAGWATCH_DATA_DIR; see the start log)' };
  const labelSchema = z
    .object({
      tripletId: z.string().min(1).max(200),
      metric: z.enum(options.concepts as [string, ...string[]], { message: `metric must be one of: ${options.concepts.join(', ')}` }),
      value: z.union([z.literal(0), z.literal(1)]),
      reviewer: z.string().min(1).max(100).optional(),
    })
    .strict();

  app.get('/review', (c) => {
    if (!store) return c.text(unavailable.error, 503);
    const nonce = newNonce();
    const feedbackOf = (traceId: string) => options.feedback?.forTrace(traceId) ?? [];
    const html = renderReviewPage(store.queue(QUEUE_PAGE), { questions: options.questions, labelled: store.labelledCount(), nonce, traceUrlTemplate: options.traceUrlTemplate, feedbackOf });
    return c.html(html, 200, pageHeaders({ nonce }));
  });
  const points = (m: CalibrationModel) => options.refitter?.points(m.metric, m.judge) ?? [];
  // Each judge metric against the reviewers' labels and against the users' feedback (two sources, never mixed).
  const agreement = () => {
    const reviewers = options.refitter?.allPoints() ?? new Map<string, LabelledScore[]>();
    const extra = [...reviewers.keys()].map((k) => ({ metric: k.split('\u0000')[0]!, judge: k.split('\u0000')[1]! }));
    return agreementRows(options.feedback?.userPoints() ?? [], (m, j) => reviewers.get(`${m}\u0000${j}`) ?? [], extra);
  };
  app.get('/calibration', (c) =>
    c.html(renderCalibrationPage(options.calibration?.models() ?? [], points, Date.now(), agreement()), 200, pageHeaders({ images: true })),
  );
  app.get('/api/calibration', (c) => c.json({ calibrations: options.calibration?.models() ?? [], labels: store?.labelCount() ?? null, agreement: agreement() }));
  app.get('/api/review', (c) => {
    if (!store) return c.json(unavailable, 503);
    const limit = Number(c.req.query('limit') ?? QUEUE_PAGE);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) return c.json({ error: 'limit must be an integer in [1,200]' }, 400);
    return c.json({ labelled: store.labelledCount(), items: store.queue(limit) });
  });
  app.post('/api/labels', bodyLimit({ maxSize: MAX_LABEL_BYTES, onError: (c) => c.json({ error: `body over ${MAX_LABEL_BYTES} bytes` }, 413) }), async (c) => {
    if (!store) return c.json(unavailable, 503);
    if (!(c.req.header('content-type') ?? '').startsWith('application/json')) return c.json({ error: 'send the label as application/json' }, 415);
    let raw: unknown;
    try {
      raw = await c.req.json();
    } catch {
      return c.json({ error: 'the body is not JSON' }, 400);
    }
    const parsed = labelSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return c.json({ error: `${issue.path.join('.') || 'body'}: ${issue.message}` }, 400);
    }
    const label = parsed.data;
    if (!store.item(label.tripletId)) return c.json({ error: `no answer ${label.tripletId} is held for review (never sampled, or evicted)` }, 404);
    try {
      store.addLabel(label);
    } catch {
      store.countError('add_label');
      return c.json({ error: 'the label could not be stored' }, 500);
    }
    return c.json({ ok: true }, 201);
  });
}
