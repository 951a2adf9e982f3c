/**
 * Builds the feedback parts of a role (docs/feedback.md):
 * - `start`: the store (data directory), the hub, the monitor, and the answer sink for the join;
 * - `collector` (split mode): the hub counts what its ingest receives and publishes it on the labels topic;
 * - `scorer` (split mode): the store, the monitor and the answer sink, fed by the labels topic — every
 *   replica holds every item, and shares the scores of an answer it scored once feedback names it.
 * @module
 */
import type { Registry } from 'prom-client';
import { createRedactor, redactionForPipeline } from '../capture/redaction/redact-outcome.ts';
import type { CapturedSpan } from '../capture/types.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { errorMessage } from '../errors.ts';
import { silentLogger, type Logger } from '../log.ts';
import type { FlagCounts } from '../metrics/flag-series.ts';
import type { AlertNotifier } from '../metrics/notifier.ts';
import { openStoreDatabase, storeFile } from '../store/sqlite.ts';
import { createKafka } from '../transport/kafka-client.ts';
import { FeedbackAnswerSink } from './answer-sink.ts';
import { FeedbackBus } from './feedback-bus.ts';
import { FeedbackStore } from './feedback-store.ts';
import { FeedbackHub } from './hub.ts';
import { FeedbackMonitor, type FeedbackTier, type FeedbackVerdict } from './monitor.ts';
import { feedbackTiersFromConfig } from './rules.ts';
import { feedbackOfSpan } from './span-feedback.ts';

/** Options of {@link openFeedback}. */
export interface OpenFeedbackOptions {
  registry: Registry;
  role: 'start' | 'collector' | 'scorer';
  logger?: Logger;
  /** The change alerts' test (the role passes it in: capabilities do not import each other). */
  verdict: (baseline: FlagCounts, long: FlagCounts, short: FlagCounts, tier: FeedbackTier) => FeedbackVerdict;
  notifier?: AlertNotifier;
  /** Service and release of an answer capture saw, by trace or response id. */
  lookup?: (traceId: string | undefined, responseId: string | undefined) => { service: string; release?: string } | undefined;
}

/** The running feedback parts. */
export interface FeedbackParts {
  hub: FeedbackHub;
  /** The scored answers for the join (start, scorer). */
  sink: FeedbackAnswerSink | undefined;
  monitor: FeedbackMonitor | undefined;
  /** Reads feedback off ingested spans and submits it. Never throws. */
  onSpans: (spans: readonly CapturedSpan[]) => void;
  start(): void;
  /** Stops the monitor and the bus, writes and closes the store. Idempotent. */
  shutdown(): Promise<void>;
}

/** The feedback parts of a role, or undefined when `feedback.enabled` is false. */
export async function openFeedback(config: RagwatchConfig, options: OpenFeedbackOptions): Promise<FeedbackParts | undefined> {
  const f = config.feedback;
  if (!f.enabled) return undefined;
  const logger = options.logger ?? silentLogger;
  const split = options.role !== 'start' && config.transport.kind === 'kafka';
  let store: FeedbackStore | undefined;
  if (options.role !== 'collector') {
    try {
      store = new FeedbackStore({ db: await openStoreDatabase(config.store.dataDir), maxItems: f.maxItems, maxAnswers: f.maxAnswers, registry: options.registry });
    } catch (err) {
      logger.error({ store: storeFile(config.store.dataDir), err: errorMessage(err) }, 'feedback store unavailable (config key "store.dataDir"): feedback is counted but not joined');
    }
  }
  const monitor = options.role === 'collector' ? undefined : new FeedbackMonitor({ registry: options.registry, windowMs: config.metrics.windowMs, tiers: feedbackTiersFromConfig(config), verdict: options.verdict, intervalMs: config.alerts.evaluationIntervalMs, ...(options.notifier ? { notifier: options.notifier } : {}) });
  const redactor = createRedactor(redactionForPipeline(config));
  let bus: FeedbackBus | undefined;
  const hub: FeedbackHub = new FeedbackHub({
    config: f,
    registry: options.registry,
    redact: (text) => {
      const r = redactor.redactWith((redact) => redact(text));
      return r.ok ? r.value : undefined;
    },
    services: { allow: config.metrics.services, max: config.metrics.maxServices },
    ...(store ? { store } : {}),
    ...(monitor ? { monitor } : {}),
    ...(split ? { publish: (item) => bus?.publishFeedback(item) } : {}),
    ...(options.lookup ? { lookup: options.lookup } : {}),
  });
  if (split) {
    bus = new FeedbackBus({
      kafka: createKafka(config.transport.kafka, logger, '-feedback'),
      section: config.transport.kafka,
      logger,
      ...(options.role === 'scorer'
        ? {
            onFeedback: (item) => {
              hub.receive(item);
              // Answers this replica scored are shared once feedback names them (the others lack their scores).
              for (const a of store?.answersOf(item.traceId, item.responseId) ?? []) if (!a.replicated) bus?.publishAnswer(a);
            },
            onAnswer: (answer) => store?.addAnswer({ ...answer, replicated: true }),
          }
        : {}),
    });
  }
  const sink = store ? new FeedbackAnswerSink({ store, registry: options.registry, ...(bus ? { publish: (a) => bus?.publishAnswer(a) } : {}) }) : undefined;
  // The windows and baselines of the alert survive a restart: replayed from the store.
  const longest = Math.max(config.metrics.windowMs, ...feedbackTiersFromConfig(config).map((t) => t.baselineMs + t.windowMs));
  if (monitor && store) hub.replay(Date.now() - longest);
  const spans = f.spans;
  let stopping: Promise<void> | undefined;
  return {
    hub,
    sink,
    monitor,
    onSpans: (list) => {
      if (!spans.enabled) return;
      for (const span of list) {
        try {
          for (const raw of feedbackOfSpan(span, spans, hub.rules)) hub.submit(raw);
        } catch {
          // A span that cannot be read for feedback is still captured; nothing of it is kept here.
        }
      }
    },
    start: () => {
      monitor?.start();
      void bus?.start();
    },
    shutdown: () =>
      (stopping ??= (async () => {
        monitor?.shutdown();
        await bus?.shutdown();
        await store?.shutdown();
      })()),
  };
}
