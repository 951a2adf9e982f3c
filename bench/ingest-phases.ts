/**
 * Diagnostic, not part of `npm run bench`: where the time of `ingest_json_ratio_vs_parse` goes.
 * Times each phase of the OTLP/JSON ingest path apart, per body, and prints each as a fraction of
 * the baseline (`JSON.parse` of the body's text, as in bench/ingest.ts):
 *
 *   node bench/ingest-phases.ts
 *   node --max-semi-space-size=64 bench/ingest-phases.ts   # the same with (almost) no scavenges
 */
import { Capture } from '../src/capture/capture.ts';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../src/capture/otlp/json.ts';
import { decodeTraceRequest } from '../src/capture/otlp/traces.ts';
import { defaultConfig } from '../src/config/load.ts';
import { createInstruments } from '../src/telemetry/instruments.ts';
import { emit, median, QUICK } from './lib.ts';
import { otlpBodyMaker } from './otlp-bodies.ts';

const BODIES = QUICK ? 30 : 100;
const ROUNDS = QUICK ? 3 : 9;
const PHASES = ['to_string', 'depth_scan', 'json_parse', 'decode', 'buffer', 'flush'] as const;

const body = otlpBodyMaker();
const sets = Array.from({ length: ROUNDS }, () => Array.from({ length: BODIES }, () => body().json));
const capture = new Capture({
  config: { ...defaultConfig().capture, maxTraces: 1_000_000, traceIdleMs: 3_600_000 },
  instruments: createInstruments({ processMetrics: false }),
  onTriplet: () => undefined,
});

const baseline: number[] = [];
const phases = Object.fromEntries(PHASES.map((p) => [p, [] as number[]])) as Record<(typeof PHASES)[number], number[]>;
for (const bodies of sets) {
  let t = performance.now();
  for (const b of bodies) JSON.parse(b.toString('utf8'));
  baseline.push(performance.now() - t);
  const sum = { to_string: 0, depth_scan: 0, json_parse: 0, decode: 0, buffer: 0 };
  for (const b of bodies) {
    t = performance.now();
    // The server's path (parseOtlpJson): latin1 for ASCII bodies.
    const text = b.toString('latin1');
    let u = performance.now();
    sum.to_string += u - t;
    jsonDepthExceeds(b, MAX_JSON_DEPTH);
    t = performance.now();
    sum.depth_scan += t - u;
    const parsed: unknown = JSON.parse(text);
    u = performance.now();
    sum.json_parse += u - t;
    const { spans } = decodeTraceRequest(parsed);
    t = performance.now();
    sum.decode += t - u;
    capture.addSpans(spans, 'otlp');
    sum.buffer += performance.now() - t;
  }
  t = performance.now();
  await capture.forceFlush();
  phases.flush.push(performance.now() - t);
  for (const [k, v] of Object.entries(sum)) phases[k as keyof typeof sum].push(v);
}
await capture.shutdown();

const base = median(baseline);
let total = 0;
for (const p of PHASES) {
  const ms = median(phases[p]);
  total += ms;
  emit({ bench: 'ingest-phases', figure: `ingest_phase_${p}`, value: ms, unit: 'ms/round', baseline: base, ratio: ms / base });
}
emit({ bench: 'ingest-phases', figure: 'ingest_phase_total', value: total, unit: 'ms/round', baseline: base, ratio: total / base });
