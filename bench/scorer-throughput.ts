/**
 * scorer_throughput_ratio_vs_limit: triplets/s the scorer sustains with the real LLM judge client
 * against the local OpenAI-compatible server answering every call after a fixed latency, at scorer
 * concurrency C, vs the bound C / (latency × calls per triplet) — i.e. how much of the available
 * judge parallelism the pipeline turns into throughput (queueing, parsing, aggregation overheads).
 */
import { LlmJudge } from '../src/judges/llm/llm-judge.ts';
import { createInstruments } from '../src/telemetry/instruments.ts';
import { Scorer } from '../src/scorer/scorer.ts';
import { MemoryTransport } from '../src/transport/memory.ts';
import type { SampledTriplet } from '../src/triplet.ts';
import { startFakeOpenAI, type FakeReply } from '../tests/fakes/openai-server.ts';
import { oracleResponder } from '../tests/judges/helpers/oracle.ts';
import { emit, QUICK } from './lib.ts';

const LATENCY_MS = 200;
const C = 8;
const N = QUICK ? 24 : 80;

const oracle = oracleResponder();
const fake = await startFakeOpenAI(async (req): Promise<FakeReply> => {
  const reply = oracle(req);
  return 'content' in reply ? { ...reply, firstChunkDelayMs: LATENCY_MS } : reply;
});
const instruments = createInstruments({ processMetrics: false });
const judge = new LlmJudge({
  baseUrl: fake.baseURL,
  apiKey: 'bench',
  model: 'bench-judge',
  maxConcurrentRequests: 4 * C,
  factCacheSize: 0,
  resultCacheSize: 0,
  // Self-distinctness embeddings are not what this figure measures: a constant-time embedder.
  embedder: { embed: async (texts: string[]) => texts.map((t, i) => [t.length, i, 1]) },
  instruments,
});
await judge.init();
let calls = 0;
let scored = 0;
const scorer = new Scorer({ judge, instruments, onRecord: (r) => { calls += r.usage.calls; scored++; } });
const transport = new MemoryTransport({ maxQueueSize: N, concurrency: C, instruments });

const triplet = (i: number): SampledTriplet => ({
  id: `t${i}`, traceId: `trace${i}`, spanId: 's', service: 'bench', timestamp: new Date().toISOString(),
  query: `When was building ${i} completed, and who designed it?`,
  sources: [
    { content: `Building ${i} was completed in 19${10 + (i % 80)}. It stands in the old town.` },
    { content: `Building ${i} was designed by architect number ${i}. The design won a prize.` },
  ],
  response: `Building ${i} was completed in 19${10 + (i % 80)}. It was designed by architect number ${i}.`,
  latency: { durationMs: 1 }, convention: 'custom', sampling: { weight: 1, stratum: 'all', rule: 'all' },
});

await transport.start(scorer.handle);
const t0 = performance.now();
for (let i = 0; i < N; i++) {
  instruments.inFlight.inc();
  transport.send(triplet(i));
}
await transport.forceFlush();
const seconds = (performance.now() - t0) / 1000;
await transport.shutdown();
await judge.shutdown();
await fake.close();
if (scored !== N) throw new Error(`scored ${scored} of ${N}`);

const callsPerTriplet = calls / N;
const throughput = N / seconds;
const bound = C / ((LATENCY_MS / 1000) * callsPerTriplet);
emit({ bench: 'scorer', figure: 'scorer_throughput_ratio_vs_limit', value: throughput, unit: 'triplets/s', baseline: bound, ratio: throughput / bound });
