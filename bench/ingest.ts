/**
 * ingest_json_ratio_vs_parse: OTLP/JSON bodies decoded (the server's entry point, `decodeTraces`)
 * and captured (assembled, mapped, latency recorded) per second, vs plain `JSON.parse` of the same
 * bodies. ingest_protobuf_spans_per_s: the same for the protobuf encoding of the same spans, with
 * its ratio to JSON. Bodies are real SDK spans serialized by @opentelemetry/otlp-transformer.
 */
import { Capture } from '../src/capture/capture.ts';
import { decodeTraces } from '../src/capture/otlp/decode.ts';
import { defaultConfig } from '../src/config/load.ts';
import { createInstruments } from '../src/telemetry/instruments.ts';
import { emit, median, profiled, QUICK } from './lib.ts';
import { otlpBodyMaker, SPANS_PER_TRACE, TRACES_PER_BODY } from './otlp-bodies.ts';

const BODIES = QUICK ? 30 : 100;
const ROUNDS = QUICK ? 3 : 7;

const body = otlpBodyMaker();
// Fresh trace ids for every round and encoding: re-sent spans are recognised as duplicates.
const makeSet = () => Array.from({ length: BODIES }, body);
const sets = Array.from({ length: ROUNDS }, () => ({ json: makeSet(), protobuf: makeSet() }));
const totalSpans = BODIES * TRACES_PER_BODY * SPANS_PER_TRACE;

let captured = 0;
const config = defaultConfig();
const capture = new Capture({
  config: { ...config.capture, maxTraces: 1_000_000, traceIdleMs: 3_600_000 },
  instruments: createInstruments({ processMetrics: false }),
  onTriplet: () => void captured++,
});

const decodeOnlyMs: Record<'json' | 'protobuf', number[]> = { json: [], protobuf: [] };
async function ingest(kind: 'json' | 'protobuf', round: number): Promise<number> {
  const bodies = sets[round]![kind];
  const t0 = performance.now();
  for (const b of bodies) capture.addSpans(decodeTraces(b[kind], kind === 'json' ? 'application/json' : 'application/x-protobuf').spans, 'otlp');
  // The request path ends here; assembly, mapping and redaction run on capture's timer.
  decodeOnlyMs[kind].push(performance.now() - t0);
  await capture.forceFlush();
  return performance.now() - t0;
}

const parseMs: number[] = [];
const jsonMs: number[] = [];
const protoMs: number[] = [];
await profiled('ingest', async () => {
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    for (const b of sets[r]!.json) JSON.parse(b.json.toString('utf8'));
    parseMs.push(performance.now() - t0);
    jsonMs.push(await ingest('json', r));
    protoMs.push(await ingest('protobuf', r));
  }
});
await capture.shutdown();
const expected = 2 * ROUNDS * BODIES * TRACES_PER_BODY;
if (captured !== expected) throw new Error(`captured ${captured} triplets, expected ${expected}`);

const rate = (ms: number[]) => totalSpans / (median(ms) / 1000);
emit({ bench: 'ingest', figure: 'ingest_json_ratio_vs_parse', value: rate(jsonMs), unit: 'spans/s', baseline: rate(parseMs), ratio: rate(jsonMs) / rate(parseMs) });
emit({ bench: 'ingest', figure: 'ingest_json_request_path_ratio_vs_parse', value: rate(decodeOnlyMs.json), unit: 'spans/s', baseline: rate(parseMs), ratio: rate(decodeOnlyMs.json) / rate(parseMs) });
emit({ bench: 'ingest', figure: 'ingest_protobuf_spans_per_s', value: rate(protoMs), unit: 'spans/s', baseline: rate(jsonMs), ratio: rate(protoMs) / rate(jsonMs) });
