/**
 * ingest_json_ratio_vs_parse: OTLP/JSON bodies decoded + captured (assembled, mapped, latency
 * recorded) per second vs plain `JSON.parse` of the same bodies, same process, interleaved.
 */
import { Capture } from '../src/capture/capture.ts';
import { decodeTraceRequest } from '../src/capture/otlp/traces.ts';
import { defaultConfig } from '../src/config/load.ts';
import { createInstruments } from '../src/metrics/instruments.ts';
import { CLOCK_TOWER, openInferenceTrace } from '../scripts/lib/otlp-trace.ts';
import { emit, median, QUICK } from './lib.ts';

const TRACES_PER_BODY = 20;
const BODIES = QUICK ? 50 : 200;
const ROUNDS = QUICK ? 5 : 15;

const bodies: Buffer[] = [];
for (let b = 0; b < BODIES; b++) {
  const merged = { resourceSpans: [] as unknown[] };
  for (let t = 0; t < TRACES_PER_BODY; t++) {
    const { body } = openInferenceTrace(CLOCK_TOWER);
    merged.resourceSpans.push(...(body.resourceSpans as unknown[]));
  }
  bodies.push(Buffer.from(JSON.stringify(merged)));
}
const totalSpans = BODIES * TRACES_PER_BODY * 3;

let captured = 0;
const config = defaultConfig();
const capture = new Capture({
  config: { ...config.capture, maxTraces: 1_000_000, traceIdleMs: 3_600_000 },
  instruments: createInstruments({ processMetrics: false }),
  onTriplet: () => void captured++,
});

const parseMs: number[] = [];
const oursMs: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  let t0 = performance.now();
  for (const b of bodies) JSON.parse(b.toString('utf8'));
  parseMs.push(performance.now() - t0);

  t0 = performance.now();
  for (const b of bodies) capture.addSpans(decodeTraceRequest(JSON.parse(b.toString('utf8'))).spans, 'otlp');
  await capture.forceFlush();
  oursMs.push(performance.now() - t0);
}
await capture.shutdown();
if (captured !== ROUNDS * BODIES * TRACES_PER_BODY) throw new Error(`captured ${captured} triplets, expected ${ROUNDS * BODIES * TRACES_PER_BODY}`);

const oursSpansPerS = totalSpans / (median(oursMs) / 1000);
const parseSpansPerS = totalSpans / (median(parseMs) / 1000);
emit({ bench: 'ingest', figure: 'ingest_json_ratio_vs_parse', value: oursSpansPerS, unit: 'spans/s', baseline: parseSpansPerS, ratio: oursSpansPerS / parseSpansPerS });
