/**
 * The LLM judge's failures as the front door shows them, read from ragwatch's registry: how many steps
 * gave no verdict, by step and reason (`ragwatch_judge_failures_total`), and when each last happened
 * (`ragwatch_judge_last_failure_timestamp_seconds`), newest first — so a judge that cannot follow the
 * protocol is visible where on-call looks, not a silent gap in the series.
 * @module
 */
import type { Registry } from 'prom-client';

/** One (step, reason) pair of judge failures. */
export interface JudgeFailureCount {
  step: string;
  reason: string;
  count: number;
  /** When it last happened, milliseconds since the epoch. */
  lastMs: number;
}

/** The judge's failures by step and reason, newest first; empty when there were none. */
export async function judgeFailureCounts(registry: Registry): Promise<JudgeFailureCount[]> {
  const values = async (name: string) => (await registry.getSingleMetric(name)?.get())?.values ?? [];
  const [counts, last] = await Promise.all([values('ragwatch_judge_failures_total'), values('ragwatch_judge_last_failure_timestamp_seconds')]);
  const key = (labels: Record<string, unknown>) => `${String(labels.step)}\u0000${String(labels.reason)}`;
  const lastByKey = new Map(last.map((v) => [key(v.labels), v.value * 1000]));
  return counts
    .filter((v) => v.value > 0)
    .map((v) => ({ step: String(v.labels.step), reason: String(v.labels.reason), count: v.value, lastMs: lastByKey.get(key(v.labels)) ?? 0 }))
    .sort((a, b) => b.lastMs - a.lastMs);
}
