/**
 * The service and release of recently captured answers, sampled or not, by trace id and by response id
 * (bounded, oldest first out): feedback on an answer that was never judged still gets its service's
 * label. Fed by capture's outcomes in the process that captures (`ragwatch start`, a collector).
 * @module
 */
import type { GenerationOutcome } from '../capture/types.ts';

interface Known {
  service: string;
  release?: string;
}

export class RecentAnswers {
  readonly #max: number;
  readonly #byTrace = new Map<string, Known>();
  readonly #traceOfResponse = new Map<string, string>();

  /** @param max answers remembered (default 10000) */
  constructor(max = 10_000) {
    this.#max = max;
  }

  /** Remembers a captured triplet's service and release. O(1), never throws. */
  readonly note = (outcome: GenerationOutcome): void => {
    if (outcome.kind !== 'triplet') return;
    const t = outcome.triplet;
    this.#byTrace.delete(t.traceId);
    this.#byTrace.set(t.traceId, t.release !== undefined ? { service: t.service, release: t.release } : { service: t.service });
    if (t.responseId !== undefined) {
      this.#traceOfResponse.delete(t.responseId);
      this.#traceOfResponse.set(t.responseId, t.traceId);
    }
    for (const map of [this.#byTrace, this.#traceOfResponse] as Array<Map<string, unknown>>) {
      if (map.size > this.#max) map.delete(map.keys().next().value!);
    }
  };

  /** The service and release of an answer seen by trace or response id. */
  readonly lookup = (traceId: string | undefined, responseId: string | undefined): Known | undefined => {
    const trace = traceId ?? (responseId !== undefined ? this.#traceOfResponse.get(responseId) : undefined);
    return trace === undefined ? undefined : this.#byTrace.get(trace);
  };
}
