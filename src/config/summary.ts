/**
 * The configuration as `/api/status` shows it.
 * @module
 */
import { metricRegistryOf } from '../metric-registry.ts';
import type { RagwatchConfig } from './schema.ts';

/** The configuration as `/api/status` shows it: no secrets (tokens and keys only as set/unset). */
export function configSummary(config: RagwatchConfig): Record<string, unknown> {
  const { server, sampling, transport, judge, metrics, alerts } = config;
  return {
    server: { host: server.host, otlpPort: server.otlpPort, otlpGrpcPort: server.otlpGrpc ? server.otlpGrpcPort : 'off', httpPort: server.httpPort, bearerToken: server.bearerToken ? 'set' : 'unset' },
    sampling: { rate: sampling.rate },
    transport: { kind: transport.kind },
    judge: { kind: judge.kind, model: judge.model, baseUrl: judge.baseUrl ? new URL(judge.baseUrl).origin : null, apiKey: judge.apiKey ? 'set' : 'unset' },
    metrics: { windowMs: metrics.windowMs, services: metrics.services, maxServices: metrics.maxServices },
    alerts: {
      evaluate: alerts.evaluate,
      alertmanager: alerts.alertmanager.url ? new URL(alerts.alertmanager.url).origin : null,
      webhook: alerts.webhook.url ? new URL(alerts.webhook.url).origin : null,
      metrics: alerts.metrics,
    },
    // Every metric this process knows: the built-ins and the configured evaluators, with their definitions.
    registry: metricRegistryOf(config).list(),
  };
}
