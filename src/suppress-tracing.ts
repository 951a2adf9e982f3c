/**
 * Runs ragwatch's own work with tracing suppressed, so judge calls and Kafka sends made inside
 * an instrumented host are not captured and fed back into ragwatch (code-style C5).
 * @module
 */
import { context, createContextKey } from '@opentelemetry/api';

// The same key @opentelemetry/core's suppressTracing() sets (createContextKey uses Symbol.for).
const SUPPRESS_TRACING_KEY = createContextKey('OpenTelemetry SDK Context Key SUPPRESS_TRACING');

/** Calls `fn` in a context where OpenTelemetry instrumentations do not record spans. */
export function withTracingSuppressed<T>(fn: () => T): T {
  return context.with(context.active().setValue(SUPPRESS_TRACING_KEY, true), fn);
}
