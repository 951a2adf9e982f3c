/**
 * Wires end users' feedback into a role (docs/feedback.md): the feedback parts with the change alerts'
 * test for the negative-share alert, and the `POST /v1/ragwatch/feedback` route of the ingest server —
 * authenticated by `server.bearerToken`; without a token only on a loopback address (refused, 403 with
 * the reason, elsewhere).
 * @module
 */
import { changeVerdict } from '../change/statistic.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { openFeedback, type FeedbackParts } from '../feedback/create.ts';
import type { RecentAnswers } from '../feedback/recent-answers.ts';
import type { Logger } from '../log.ts';
import type { AlertNotifier } from '../metrics/notifier.ts';
import type { IngestAppOptions } from '../server/ingest-app.ts';
import { isLoopback } from '../server/ui-auth.ts';
import type { Registry } from 'prom-client';

/** The feedback parts of a role, or undefined when `feedback.enabled` is false. */
export function startFeedback(config: RagwatchConfig, options: { registry: Registry; logger: Logger; role: 'start' | 'collector' | 'scorer'; notifier?: AlertNotifier; recent?: RecentAnswers }): Promise<FeedbackParts | undefined> {
  return openFeedback(config, {
    registry: options.registry,
    logger: options.logger,
    role: options.role,
    verdict: (baseline, long, short, tier) => changeVerdict(baseline, long, short, tier),
    ...(options.notifier ? { notifier: options.notifier } : {}),
    ...(options.recent ? { lookup: options.recent.lookup } : {}),
  });
}

/** The ingest route of the parts. */
export function feedbackRoute(server: RagwatchConfig['server'], parts: FeedbackParts): NonNullable<IngestAppOptions['feedback']> {
  const open = server.bearerToken === undefined;
  return {
    accept: (body) => {
      const parsed = parts.hub.parse(body);
      if (!parsed.ok) return parsed;
      const item = parts.hub.submit(parsed.item);
      return { ok: true, id: item.id, polarity: item.polarity };
    },
    ...(open && !isLoopback(server.host) ? { refusal: 'feedback is a write: set server.bearerToken (env RAGWATCH_BEARER_TOKEN) to accept it on a non-loopback address' } : {}),
  };
}
