/**
 * The step between capture and transport, shared by the full pipeline and the plugin's light one:
 * the sampler decides, the decision is counted (captured = sampled + not_sampled), and a sampled
 * triplet goes to the producer with its weight and stratum, counted in flight until the producer
 * settles it (delivered or dropped).
 * @module
 */
import type { Capture } from '../capture/capture.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { MAX_TURNS_RULE } from '../sampling/conversation-bound.ts';
import { createSampler, type SamplerContext } from '../sampling/create.ts';
import { feedbackSignalOf } from '../sampling/feedback-signal.ts';
import type { Sampler } from '../sampling/types.ts';
import type { Instruments } from '../telemetry/instruments.ts';
import type { TripletProducer } from '../transport/types.ts';
import type { Triplet } from '../triplet.ts';
import type { TrailRecorder } from '../trail/types.ts';
import { traceQueued, traceSampling } from './trail.ts';

/**
 * The configured sampler of a process, reading triplets of `capture`: `negativeFeedback` rules read
 * feedback as the `feedback` section does, and configured attribute values are compared as capture
 * carries them (an identifier by its pseudonym under capture's key).
 */
export function samplerFor(config: RagwatchConfig, capture: Pick<Capture, 'pseudonymOf'>, context: Pick<SamplerContext, 'topicOf'> = {}): Sampler {
  return createSampler(config.sampling, { ...context, feedback: feedbackSignalOf(config.feedback), carriedValue: (key, value) => capture.pseudonymOf(key, value) });
}

/** Where {@link sampleInto} tells its decisions: the process's trail and how its producer is named there (`memory queue`, `kafka topic …`). */
export interface SampleTrail {
  recorder: TrailRecorder;
  where: string;
}

/** Samples one captured triplet into `producer` (none: counted as not sampled), told to `trail`. Never throws. */
export function sampleInto(triplet: Triplet, sampler: Sampler, producer: TripletProducer | undefined, instruments: Instruments, trail?: SampleTrail): void {
  let decision;
  try {
    decision = sampler.shouldSample(triplet);
  } catch {
    // A sampler bug must not break capture; count it so captured = sampled + not_sampled still holds.
    instruments.notSampled.inc();
    instruments.dropped.inc({ stage: 'sampling', reason: 'sampler_error' });
    if (trail) traceSampling(trail.recorder, triplet, { error: true });
    return;
  }
  if (trail) traceSampling(trail.recorder, triplet, decision);
  if (!decision.sampled || !producer) {
    instruments.notSampled.inc();
    if (!decision.sampled && decision.rule === MAX_TURNS_RULE) instruments.dropped.inc({ stage: 'sampling', reason: MAX_TURNS_RULE });
    return;
  }
  instruments.sampled.inc({ stratum: decision.sampling.stratum });
  instruments.inFlight.inc();
  // send() never throws or blocks; on a drop it counts the reason and settles in_flight itself.
  const accepted = producer.send({ ...triplet, sampling: decision.sampling });
  if (trail) traceQueued(trail.recorder, triplet, accepted, trail.where);
}
