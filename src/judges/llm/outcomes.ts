/**
 * How a judge step ends, as counted: a valid answer on the first try or after the one repair, or the
 * reason it gave no verdict (`ragwatch_judge_answers_total`, `ragwatch_judge_failures_total{reason}`);
 * and the prompt-size estimate the client budgets with.
 * @module
 */
import type { RagwatchErrorCode } from '../../errors.ts';

/** How one step ended: a valid answer (first try or after the repair), or why there is none. */
export type StepOutcomeReason = 'valid_first_try' | 'valid_after_repair' | JudgeFailureReason;

/** Why a judge step gave no verdict (the `reason` of `ragwatch_judge_failures_total`). */
export type JudgeFailureReason = 'malformed' | 'truncated' | 'timeout' | 'rate_limited' | 'server_error' | 'unreachable' | 'rejected' | 'context_exceeded' | 'circuit_open' | 'aborted';

/** A prompt's tokens, estimated from its characters (≈ 3.5 per token for English and JSON; rounded towards more tokens). */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / 3.2) + 16;
}

const REASON_BY_CODE: Partial<Record<RagwatchErrorCode, JudgeFailureReason>> = {
  RAGWATCH_JUDGE_MALFORMED: 'malformed',
  RAGWATCH_JUDGE_TIMEOUT: 'timeout',
  RAGWATCH_JUDGE_RATE_LIMITED: 'rate_limited',
  RAGWATCH_JUDGE_UNAVAILABLE: 'server_error',
  RAGWATCH_JUDGE_REJECTED: 'rejected',
  RAGWATCH_JUDGE_CONTEXT_EXCEEDED: 'context_exceeded',
  RAGWATCH_JUDGE_CIRCUIT_OPEN: 'circuit_open',
  RAGWATCH_SHUTDOWN: 'aborted',
};

/** The failure reason of a judge error code (`ragwatch_judge_failures_total{reason}`). */
export function failureReason(code: RagwatchErrorCode, message = ''): JudgeFailureReason {
  if (code === 'RAGWATCH_JUDGE_UNAVAILABLE' && /unreachable/.test(message)) return 'unreachable';
  return REASON_BY_CODE[code] ?? 'rejected';
}

/** How one HTTP request to the endpoint ended (the `outcome` of `ragwatch_judge_requests_total`). */
export type RequestOutcome = 'ok' | 'rate_limited' | 'server_error' | 'timeout' | 'network_error' | 'client_error' | 'circuit_open';

/** Waits `ms`, or rejects when `signal` aborts. */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    }, { once: true });
  });

/** The judge error code of a failed request, by its outcome. */
export const CODE_BY_OUTCOME: Record<RequestOutcome, RagwatchErrorCode> = {
  ok: 'RAGWATCH_JUDGE_FAILED',
  rate_limited: 'RAGWATCH_JUDGE_RATE_LIMITED',
  server_error: 'RAGWATCH_JUDGE_UNAVAILABLE',
  timeout: 'RAGWATCH_JUDGE_TIMEOUT',
  network_error: 'RAGWATCH_JUDGE_UNAVAILABLE',
  client_error: 'RAGWATCH_JUDGE_REJECTED',
  circuit_open: 'RAGWATCH_JUDGE_CIRCUIT_OPEN',
};
