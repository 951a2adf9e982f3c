/**
 * Probe trace ids: the left 8 bytes are a fixed marker, the right 8 random (W3C Trace Context level 2
 * asks randomness of the rightmost 7 bytes only). Every stage — capture, sampling, scorer, metrics, in
 * any process — tells a probe's triplet from production traffic by its trace id alone, with no
 * coordination between the prober and the collectors (a production id carries the marker with
 * probability 2⁻⁶⁴). The marker and its test are part of the wire contract (`triplet.ts`).
 * @module
 */
import { randomBytes } from 'node:crypto';
import { PROBE_TRACE_MARKER } from '../triplet.ts';

/** A fresh probe trace id (32 lower-case hex digits). */
export function probeTraceId(): string {
  return PROBE_TRACE_MARKER + randomBytes(8).toString('hex');
}
