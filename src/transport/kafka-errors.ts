/**
 * Names the cause of a kafkajs failure for operators: a bounded `reason` for
 * `ragwatch_kafka_connection_errors_total{reason}` and a hint naming the config key to check.
 * `authentication`, `tls` and `authorization` do not heal by retrying alone: while one of them is
 * the latest outcome, a role is not ready (`/readyz`) and retries on a long backoff.
 * @module
 */
import { errorMessage } from '../errors.ts';

/** Why a Kafka connection or request failed. */
export type KafkaErrorReason = 'authentication' | 'tls' | 'authorization' | 'unreachable' | 'unavailable' | 'closed' | 'other';

/** A classified failure. */
export interface KafkaErrorCause {
  reason: KafkaErrorReason;
  /** The innermost error's message. */
  message: string;
  /** What to check, naming the config key. */
  hint: string;
  /** Needs a change of configuration or of the cluster's users/ACLs, not only time. */
  persistent: boolean;
}

/** Node's TLS verification error codes (`tls.TLSSocket` / OpenSSL). */
const TLS_CODES = /^(UNABLE_TO_|SELF_SIGNED_CERT|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_|ERR_TLS_|ERR_SSL_|HOSTNAME_MISMATCH|EPROTO$)/;
/** Broker answers while leaders, coordinators or replicas move (a failover, a restart, a new topic). */
const UNAVAILABLE_TYPES = /^(NOT_LEADER|LEADER_NOT_AVAILABLE|NOT_ENOUGH_REPLICAS|NOT_COORDINATOR|COORDINATOR_|REQUEST_TIMED_OUT|NETWORK_EXCEPTION|UNKNOWN_TOPIC_OR_PARTITION|REBALANCE_IN_PROGRESS|KAFKA_STORAGE_ERROR|FENCED_LEADER_EPOCH|UNKNOWN_LEADER_EPOCH)/;
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ECONNRESET']);

interface ErrorLike {
  name?: string;
  type?: string;
  code?: string;
  message?: string;
  cause?: unknown;
  originalError?: unknown;
  errors?: unknown[];
}

/** The chain of an error: itself, its causes, and the members of an aggregate. */
function chain(err: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  const queue: unknown[] = [err];
  while (queue.length > 0 && out.length < 20) {
    const e = queue.shift();
    if (typeof e !== 'object' || e === null || out.includes(e as ErrorLike)) continue;
    const x = e as ErrorLike;
    out.push(x);
    queue.push(x.cause, x.originalError, ...(Array.isArray(x.errors) ? x.errors : []));
  }
  return out;
}

/** Classifies a kafkajs (or Node socket/TLS) error. */
export function classifyKafkaError(err: unknown): KafkaErrorCause {
  const errors = chain(err);
  const innermost = errors.at(-1) ?? {};
  const message = innermost.message ?? errorMessage(err);
  const found = (test: (e: ErrorLike) => boolean) => errors.find(test);
  const sasl = found((e) => e.name === 'KafkaJSSASLAuthenticationError' || e.type === 'SASL_AUTHENTICATION_FAILED' || e.type === 'UNSUPPORTED_SASL_MECHANISM' || e.type === 'ILLEGAL_SASL_STATE');
  if (sasl) return { reason: 'authentication', message: sasl.message ?? message, hint: 'the brokers refused the SASL credentials: check transport.kafka.sasl (mechanism, username, password — env RAGWATCH_KAFKA_SASL_PASSWORD)', persistent: true };
  const tls = found((e) => typeof e.code === 'string' && TLS_CODES.test(e.code));
  if (tls) return { reason: 'tls', message: `${tls.message ?? message} (${tls.code})`, hint: 'the TLS handshake failed: check transport.kafka.tls.caFile (the CA that signed the brokers\' certificates), tls.servername, and that the brokers\' certificate names the address in transport.kafka.brokers', persistent: true };
  const denied = found((e) => typeof e.type === 'string' && e.type.endsWith('_AUTHORIZATION_FAILED'));
  if (denied) return { reason: 'authorization', message: `${denied.message ?? message} (${denied.type})`, hint: `the brokers' ACLs deny this principal (${denied.type}): grant it the operation on the named topic, group or cluster`, persistent: true };
  const unreachable = found((e) => (typeof e.code === 'string' && UNREACHABLE_CODES.has(e.code)) || e.name === 'KafkaJSConnectionError' || e.name === 'KafkaJSRequestTimeoutError' || e.name === 'KafkaJSBrokerNotFound');
  if (unreachable) return { reason: 'unreachable', message: unreachable.message ?? message, hint: 'no broker answered: check transport.kafka.brokers and the network; sending is retried', persistent: false };
  const moving = found((e) => typeof e.type === 'string' && UNAVAILABLE_TYPES.test(e.type));
  if (moving) return { reason: 'unavailable', message: `${moving.message ?? message} (${moving.type})`, hint: 'a broker, leader or coordinator is moving (failover, restart, a new topic); retried', persistent: false };
  if (found((e) => e.name === 'KafkaJSConnectionClosedError')) {
    return { reason: 'closed', message, hint: 'the broker closed the connection: a TLS or SASL listener reached without transport.kafka.tls.enabled / transport.kafka.sasl, or a broker restarting', persistent: false };
  }
  return { reason: 'other', message, hint: 'see the error', persistent: false };
}
