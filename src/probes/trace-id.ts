/**
 * Probe trace ids: the left 8 bytes are a fixed marker, the right 8 random (W3C Trace Context level 2
 * asks randomness of the rightmost 7 bytes only). Every stage — capture, sampling, scorer, metrics, in
 * any process — tells a probe's triplet from production traffic by its trace id alone, with no
 * coordination between the prober and the collectors (a production id carries the marker with
 * probability 2⁻⁶⁴).
 * @module
 */
import { randomBytes } from 'node:crypto';

/** Hex of the marker ("ragwatch probe" folded into 8 bytes). */
export const PROBE_TRACE_MARKER = '7261677770726f62';

/** A fresh probe trace id (32 lower-case hex digits). */
export function probeTraceId(): string {
  return PROBE_TRACE_MARKER + randomBytes(8).toString('hex');
}

/** True for a trace id made by {@link probeTraceId}. */
export function isProbeTraceId(traceId: string): boolean {
  return traceId.length === 32 && traceId.startsWith(PROBE_TRACE_MARKER);
}
