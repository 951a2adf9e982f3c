/**
 * Builds the kafkajs client from the `transport.kafka` config section: brokers, TLS, SASL,
 * timeouts, and kafkajs logs routed into ragwatch's logger (never payloads).
 * @module
 */
import { Kafka, logLevel, type KafkaConfig, type SASLOptions } from 'kafkajs';
import type { RagwatchConfig } from '../config/schema.ts';
import { silentLogger, type Logger } from '../log.ts';

/** The `transport.kafka` config section. */
export type KafkaSection = RagwatchConfig['transport']['kafka'];

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/** kafkajs connection options (TLS, SASL) for a config section, without the logger. */
export function kafkaConfigOf(section: KafkaSection, clientIdSuffix = ''): KafkaConfig {
  const config: KafkaConfig = {
    clientId: `${section.clientId}${clientIdSuffix}`,
    brokers: section.brokers,
    connectionTimeout: section.connectionTimeoutMs,
    // Our own send loop retries forever with backoff; kafkajs' retries only smooth over blips.
    retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1_000 },
  };
  const { tls } = section;
  if (tls.enabled) {
    config.ssl = {
      rejectUnauthorized: true,
      ...(tls.caFile !== undefined ? { ca: [tls.caFile] } : {}),
      ...(tls.certFile !== undefined ? { cert: tls.certFile } : {}),
      ...(tls.keyFile !== undefined ? { key: tls.keyFile } : {}),
      ...(tls.servername !== undefined ? { servername: tls.servername } : {}),
    };
  }
  if (section.sasl) {
    const { mechanism, username, password } = section.sasl;
    config.sasl = { mechanism, username, password } as SASLOptions;
  }
  return config;
}

/** Settings of a `BufferedKafkaProducer` from the section (all but the client, topic and callbacks). */
export function producerSettingsOf(section: KafkaSection): { compression: 'gzip' | 'none'; requestTimeoutMs: number; maxRetryBackoffMs: number; idempotent: boolean; retryWindowMs: number } {
  const p = section.producer;
  return { compression: p.compression, requestTimeoutMs: p.requestTimeoutMs, maxRetryBackoffMs: p.maxRetryBackoffMs, idempotent: p.idempotent, retryWindowMs: p.retryWindowMs };
}

/** kafkajs warns when an idempotent producer's retries are bounded; ours are on purpose (`retryWindowMs`). */
const BOUNDED_RETRIES_WARNING = 'Limiting retries for the idempotent producer';
/**
 * Error answers kafkajs logs at `error` for every request although the caller retries them: a
 * coordinator or leader moving, a topic just created. They flood a starting or failing-over cluster's
 * logs; ragwatch's own lines report what does not heal (with its cause), so these go to `debug`.
 */
const TRANSIENT_ANSWER = /coordinator is loading|coordinator is not available|does not host this topic-partition|Topic creation errors|is rebalancing|There is no leader|not the leader|Not enough replicas/i;

/** A kafkajs client whose own logs go to `logger` (warn and above by default). */
export function createKafka(section: KafkaSection, logger: Logger = silentLogger, clientIdSuffix = ''): Kafka {
  return new Kafka({
    ...kafkaConfigOf(section, clientIdSuffix),
    logLevel: logLevel.WARN,
    logCreator: () => (entry) => {
      const level = LEVELS[entry.level] ?? 'debug';
      const { message, ...rest } = entry.log;
      if (typeof message === 'string' && message.startsWith(BOUNDED_RETRIES_WARNING)) return;
      if (entry.namespace === 'Connection' && typeof message === 'string' && message.startsWith('Response ') && TRANSIENT_ANSWER.test(String((rest as { error?: unknown }).error ?? ''))) {
        logger.debug({ kafka: entry.namespace, ...rest }, message);
        return;
      }
      logger[level]({ kafka: entry.namespace, ...rest }, message);
    },
  });
}
