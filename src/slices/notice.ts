/**
 * The notice of a slice alert: it names the slice (`release="v2"`), gives its flagged share next to
 * the reference's with the counts, and links to that slice's examples since the drop became visible.
 * @module
 */
import type { AlertNotice } from '../metrics/notifier.ts';
import { metricAlertName } from '../metrics/rules.ts';
import type { Slice, SliceEntry } from './book.ts';

/** The slice alert of `metric`: `RagwatchGroundingLexicalSliceDrop`. */
export function sliceAlertName(metric: string): string {
  return metricAlertName(metric, 'SliceDrop');
}

const pct = (x: number | null | undefined) => (x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : `${(x * 100).toFixed(1)} %`);

/** What the reference is, in words. */
function referenceText(slice: Slice, e: SliceEntry): string {
  if (e.reference === 'own_baseline') return `its own baseline (n=${e.referenceSamples})`;
  return `the rest of the service over the same period (n=${e.referenceSamples}, other ${slice.dimension === 'release' ? 'releases' : `${slice.dimension}s`})`;
}

/** The Alertmanager notice of a slice alert. */
export function sliceNotice(service: string, slice: Slice, e: SliceEntry, status: 'firing' | 'resolved', now: number, o: { examplesUrl?: string; intervalMs?: number }): AlertNotice {
  const name = `${slice.dimension}=${slice.value}`;
  const share = e.runSamples > 0 ? e.runFlagged / e.runSamples : null;
  const since = e.runSinceMs ?? e.firingSinceMs ?? now;
  const examples = o.examplesUrl
    ? `${o.examplesUrl}/examples?metric=${encodeURIComponent(e.metric)}&service=${encodeURIComponent(service)}&${slice.dimension}=${encodeURIComponent(slice.value)}&since=${since}`
    : '';
  const flagged = Number.isInteger(e.runFlagged) ? String(e.runFlagged) : e.runFlagged.toFixed(1);
  return {
    status,
    labels: { alertname: sliceAlertName(e.metric), metric: e.metric, judge: e.judge, service, severity: 'page', kind: 'slice', dimension: slice.dimension, slice: slice.value, [slice.dimension]: slice.value },
    annotations: {
      summary: `${e.metric} dropped in ${name} of ${service}: ${flagged} of ${e.runSamples} answers flagged (${pct(share)}) since ${new Date(since).toISOString()} vs ${pct(e.referenceShare)} in ${referenceText(slice, e)}`,
      description:
        `The ${e.judge} judge flags ${pct(share)} of the ${e.metric} answers of ${name} (${flagged} of ${e.runSamples}) against at most ${pct(e.referenceShare)} in ${referenceText(slice, e)}: ` +
        `the slice's CUSUM is ${e.cusum.toFixed(1)} over its threshold ${e.threshold.toFixed(1)}, set so all slices of ${service} together page falsely at most alerts.slices.falsePagesPer30Days times in 30 days.`,
      slice: name,
      visible_since: new Date(since).toISOString(),
      ...(examples ? { examples } : {}),
    },
    startsAt: new Date(e.firingSinceMs ?? now).toISOString(),
    endsAt: new Date(status === 'firing' ? now + 4 * (o.intervalMs ?? 15_000) : now).toISOString(),
    generatorURL: '',
  };
}
