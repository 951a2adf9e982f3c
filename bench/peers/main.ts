/**
 * `npm run bench -- peers`: ragwatch side by side with what a team would pick instead, on the same work,
 * one tool after the other in one run on the same machine (issue 53):
 *
 * - ingest — the same OTLP/HTTP protobuf RAG traces into `phoenix serve` and `ragwatch start`
 *   (bench/peers/ingest.ts): accepted spans/s, CPU s per 10,000 spans, peak RSS, seconds from the last
 *   send until the last trace is visible; then a fixed rate (500 spans/s) both hold: CPU and RSS.
 * - judging — HaluEval QA triplets judged by ragwatch's LLM judge, RAGAS and DeepEval against the same
 *   model on the same OpenAI-compatible server, every call counted by one proxy (bench/peers/judging.ts):
 *   LLM calls, input and output tokens and wall seconds per triplet, failed judgments, AUC against the
 *   labels (all pairs and length-matched pairs); ragwatch's embedded judge on the same triplets.
 *
 * The Python tools run from their own pinned, hash-checked environments (bench/peers/setup.sh, cached
 * under ~/.cache/ragwatch/python). One JSON line per figure and tool: `peers_<figure>_<tool>`, `ratio` the
 * value over the best peer's (ragwatch's line: its ratio to the best peer; a peer's: to the best peer).
 *
 *   node bench/peers/main.ts                       full run (ingest 20,000 spans and 60 s fixed rate; judging 100 triplets)
 *   node bench/peers/main.ts --quick               CI: ingest 1,200 spans and 10 s; judging skipped (says why) unless --base-url
 *   node bench/peers/main.ts --base-url http://127.0.0.1:8080/v1 --model NAME   judge against a running server
 *   node bench/peers/main.ts --skip-ingest --triplets 10   only the judging half, 10 triplets
 *   node bench/peers/main.ts --skip-judging --in-flight 16   only the ingest half, 16 burst requests in flight (default 4)
 *   node bench/peers/main.ts --skip-ingest --out r.jsonl [--offset 40]   each judgment appended to r.jsonl (resume at triplet 40)
 *   node bench/peers/main.ts --skip-ingest --summarize r.jsonl [--summarize ragwatch.jsonl]   the figures of recorded runs
 *
 * Without --base-url the judging half starts llama.cpp's server (tests/helpers/llama-server.ts) on the
 * test model (scripts/models/fetch-test-model.sh). A 1.5B model on CPU answers in seconds to tens of
 * seconds per call: 100 triplets through three tools take hours on 2 cores.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadEmbeddingModel } from '../../src/judges/embedded/model.ts';
import { llamaServerVenv, startLlamaServer, type LlamaServer } from '../../tests/helpers/llama-server.ts';
import { testModel } from '../../tests/helpers/test-model.ts';
import { emit, QUICK, type Figure } from '../lib.ts';
import { burst, fixedRate, IN_FLIGHT, ragBodies, startServer, type BurstResult, type FixedRateResult } from './ingest.ts';
import { commonTriplets, fromLlmJudgeReal, fromLocalFixture, haluevalTriplets, judgeTriplet, pythonPeerJudge, ragwatchEmbeddedJudge, ragwatchLlmJudge, summarize, type JudgingSummary, type JudgmentRecord, type LabelledTriplet, type TripletJudge } from './judging.ts';
import { startLlmProxy } from './llm-proxy.ts';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    'skip-ingest': { type: 'boolean', default: false },
    'skip-judging': { type: 'boolean', default: false },
    'base-url': { type: 'string' },
    model: { type: 'string' },
    triplets: { type: 'string' },
    /** Judging: start at this triplet of the file (resume a stopped run; records append to --out). */
    offset: { type: 'string', default: '0' },
    /** Judging: append each judgment as a JSON line to this file as it happens. */
    out: { type: 'string' },
    /** Judging: no run; report the records of these files (--out's, or scripts/llm-judge-real.ts's as ragwatch's). */
    summarize: { type: 'string', multiple: true },
    /** Judging: only these tools (comma-separated: ragwatch, ragwatch_answer — judge.llm.sourceMetrics false —, ragas, deepeval, ragwatch_embedded). */
    tools: { type: 'string', default: 'ragwatch,ragas,deepeval,ragwatch_embedded' },
    spans: { type: 'string' },
    /** Ingest: burst requests in flight (default 4). */
    'in-flight': { type: 'string' },
    'fixed-seconds': { type: 'string' },
    file: { type: 'string', default: new URL('../../../shared/data/halueval/qa_one_turn.jsonl', import.meta.url).pathname },
  },
});

/** One figure of one tool (`tool` is on the line too). */
interface PeerFigure extends Figure {
  tool: string;
}

/**
 * Emits `figure` for every tool: its value, the best peer's value as baseline, and the ratio to it.
 * `better`: which way is better (the best peer is the highest or the lowest of the peers' values).
 */
function report(figure: string, unit: string, better: 'higher' | 'lower', values: Record<string, number | undefined>): void {
  const peers = Object.entries(values).filter(([tool, v]) => !tool.startsWith('ragwatch') && v !== undefined && Number.isFinite(v)).map(([, v]) => v!);
  const best = peers.length === 0 ? undefined : better === 'higher' ? Math.max(...peers) : Math.min(...peers);
  for (const [tool, value] of Object.entries(values)) {
    if (value === undefined || !Number.isFinite(value)) continue;
    const f: PeerFigure = { bench: 'peers', figure: `peers_${figure}_${tool}`, tool, value, unit, baseline: best ?? null, ratio: best === undefined || best === 0 ? null : value / best };
    emit(f);
  }
}

/** The environments made (or found) by bench/peers/setup.sh: name → virtualenv. */
function peerEnvs(names: string[]): Map<string, string> {
  const r = spawnSync('bash', [new URL('./setup.sh', import.meta.url).pathname, ...names], { encoding: 'utf8', timeout: 30 * 60_000, stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`bench/peers/setup.sh ${names.join(' ')} exited ${r.status}`);
  return new Map(r.stdout.trim().split('\n').map((l) => l.split(' ') as [string, string]));
}

async function ingest(): Promise<void> {
  const spans = Number(args.spans ?? (QUICK ? 1_200 : 20_000));
  const fixedSeconds = Number(args['fixed-seconds'] ?? (QUICK ? 10 : 60));
  const rate = 500;
  const inFlight = Number(args['in-flight'] ?? IN_FLIGHT);
  if (!Number.isInteger(inFlight) || inFlight < 1) throw new Error(`--in-flight must be a whole number ≥ 1, got ${args['in-flight']}`);
  const phoenixVenv = peerEnvs(['phoenix']).get('phoenix')!;
  const phoenixVersion = spawnSync(`${phoenixVenv}/bin/python`, ['-c', 'import importlib.metadata as m; print(m.version("arize-phoenix"))'], { encoding: 'utf8' }).stdout.trim();
  process.stderr.write(`peers ingest: ${spans} spans (5 chunks of 800 chars a trace), arize-phoenix ${phoenixVersion}; burst ${inFlight} requests in flight; fixed rate ${rate} spans/s for ${fixedSeconds} s\n`);
  const bursts: Record<string, BurstResult> = {};
  const fixed: Record<string, FixedRateResult> = {};
  for (const tool of ['phoenix', 'ragwatch'] as const) {
    // Fresh ids per server: bodies are made anew for each (no server sees another's traces).
    let server = await startServer(tool, phoenixVenv);
    try {
      const warm = ragBodies(300);
      await burst(server, warm, 300);
      bursts[tool] = await burst(server, ragBodies(spans), spans, inFlight);
      process.stderr.write(`peers ingest ${tool}: ${JSON.stringify(bursts[tool])}\n`);
    } finally {
      await server.stop();
    }
    server = await startServer(tool, phoenixVenv);
    try {
      await burst(server, ragBodies(300), 300);
      fixed[tool] = await fixedRate(server, ragBodies(Math.min(rate * fixedSeconds, 30_000)), rate, fixedSeconds);
      process.stderr.write(`peers fixed rate ${tool}: ${JSON.stringify(fixed[tool])}\n`);
    } finally {
      await server.stop();
    }
  }
  const of = <T,>(m: Record<string, T>, f: (x: T) => number) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, f(v)]));
  report('ingest_spans_per_s', 'spans/s', 'higher', of(bursts, (b) => b.spansPerS));
  report('ingest_cpu_s_per_10k_spans', 'CPU s', 'lower', of(bursts, (b) => b.cpuSPer10kSpans));
  report('ingest_peak_rss_mb', 'MB', 'lower', of(bursts, (b) => b.peakRssMb));
  report('ingest_idle_rss_mb', 'MB', 'lower', of(bursts, (b) => b.baseRssMb));
  report('ingest_visible_after_s', 's', 'lower', of(bursts, (b) => b.visibleAfterS));
  report('idle_cpu_share', 'cores', 'lower', of(bursts, (b) => b.idleCpuShare));
  report('fixed_rate_cpu_share', 'cores', 'lower', of(fixed, (f) => f.cpuShare));
  report('fixed_rate_peak_rss_mb', 'MB', 'lower', of(fixed, (f) => f.peakRssMb));
  report('fixed_rate_spans_per_s', 'spans/s', 'higher', of(fixed, (f) => f.spansPerS));
}

/**
 * Reads records written by `--out` from `files`; also `scripts/llm-judge-real.ts`'s (as ragwatch's) and
 * the local judge's fixture (a `.json` file, as `ragwatch_local`'s).
 */
function readRecords(files: string[]): JudgmentRecord[] {
  return files.flatMap((f) => f.endsWith('.json') ? fromLocalFixture(JSON.parse(readFileSync(f, 'utf8')) as Parameters<typeof fromLocalFixture>[0]) : readFileSync(f, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => {
    const o = JSON.parse(l) as JudgmentRecord & Parameters<typeof fromLlmJudgeReal>[0];
    return typeof o.tool === 'string' ? o : fromLlmJudgeReal(o);
  }));
}

/** Prints the summary of each tool and one figure line per figure and tool, on the triplets all judged. */
function reportJudging(records: JudgmentRecord[], triplets: LabelledTriplet[]): void {
  const common = commonTriplets(records, triplets);
  if (common.length === 0) {
    process.stderr.write('peers judging: no triplet judged by every tool; nothing to report\n');
    return;
  }
  const tools = [...new Set(records.map((r) => r.tool))];
  const summaries = tools.map((tool) => summarize(tool, records, common));
  for (const s of summaries) process.stderr.write(`peers judging ${s.tool}: ${JSON.stringify(s)}\n`);
  const noLlm = new Set(['ragwatch_embedded', 'ragwatch_local']);
  const by = (f: (s: JudgingSummary) => number | undefined, onlyLlm = false) => Object.fromEntries(summaries.filter((s) => !onlyLlm || !noLlm.has(s.tool)).map((s) => [s.tool, f(s)]));
  report('judge_triplets', 'triplets', 'higher', by((s) => s.triplets));
  report('judge_llm_calls_per_triplet', 'calls', 'lower', by((s) => s.callsPerTriplet, true));
  report('judge_input_tokens_per_triplet', 'tokens', 'lower', by((s) => s.inputTokensPerTriplet, true));
  report('judge_output_tokens_per_triplet', 'tokens', 'lower', by((s) => s.outputTokensPerTriplet, true));
  // The local judge's fixture records no time (its cost per answer: bench local-judge).
  const timed = (f: (s: JudgingSummary) => number) => by((s) => (s.tool === 'ragwatch_local' ? undefined : f(s)));
  report('judge_wall_s_per_triplet', 's', 'lower', timed((s) => s.wallSPerTriplet));
  report('judge_wall_s_median_triplet', 's', 'lower', timed((s) => s.wallSMedianPerTriplet));
  report('judge_failed_judgments', 'judgments', 'lower', by((s) => s.failedJudgments));
  report('judge_faithfulness_auc', 'AUC', 'higher', by((s) => s.faithfulnessAuc));
  report('judge_faithfulness_auc_length_matched', 'AUC', 'higher', by((s) => s.faithfulnessAucLengthMatched));
  report('judge_relevancy_auc', 'AUC', 'higher', by((s) => s.relevancyAuc));
}

async function judging(): Promise<void> {
  const n = Number(args.triplets ?? (QUICK ? 2 : 100));
  const offset = Number(args.offset);
  const all = haluevalTriplets(args.file, offset + n);
  if (args.summarize) {
    reportJudging(readRecords(args.summarize), haluevalTriplets(args.file, Number.MAX_SAFE_INTEGER));
    return;
  }
  if (QUICK && !args['base-url']) {
    process.stderr.write('peers judging: skipped in quick mode — every call goes through a 1.5B model on CPU (seconds to tens of seconds each; 100 triplets × 3 tools take hours). Run it with --base-url URL --model NAME, or without --quick.\n');
    return;
  }
  let server: LlamaServer | undefined;
  let baseUrl = args['base-url'];
  let model = args.model;
  if (!baseUrl) {
    const venv = llamaServerVenv('bench peers');
    const modelPath = testModel('bench peers', { fetch: true });
    if (!venv || !modelPath) throw new Error('peers judging: no --base-url and no llama.cpp server (tests/python/llama-server/setup.sh) or test model (scripts/models/fetch-test-model.sh)');
    server = await startLlamaServer({ venv, modelPath, ctxSize: 8192 });
    baseUrl = server.baseUrl;
    model = server.model;
  }
  if (!model) throw new Error('peers judging: --model is required with --base-url');
  const tools = args.tools.split(',');
  const envs = peerEnvs(tools.filter((t) => t === 'ragas' || t === 'deepeval'));
  const embedder = await loadEmbeddingModel();
  const proxy = await startLlmProxy(baseUrl, embedder);
  const triplets = all.slice(offset);
  process.stderr.write(`peers judging: triplets ${offset}–${offset + triplets.length - 1} of ${args.file}, tools ${tools.join(', ')} taking turns row by row, model ${model} at ${baseUrl}${args.out ? `, records to ${args.out}` : ''}\n`);
  const judges: TripletJudge[] = [];
  const records: JudgmentRecord[] = [];
  try {
    for (const tool of tools) {
      if (tool === 'ragwatch' || tool === 'ragwatch_answer') judges.push(await ragwatchLlmJudge(proxy, model, embedder, tool === 'ragwatch'));
      else if (tool === 'ragas' || tool === 'deepeval') judges.push(pythonPeerJudge(tool, envs.get(tool)!, proxy, model));
      else if (tool === 'ragwatch_embedded') judges.push(await ragwatchEmbeddedJudge());
      else throw new Error(`peers judging: unknown tool ${tool} (--tools: ragwatch, ragwatch_answer, ragas, deepeval, ragwatch_embedded)`);
    }
    const rows = [...new Set(triplets.map((t) => t.row))];
    for (const row of rows) {
      for (const judge of judges) {
        for (const t of triplets.filter((x) => x.row === row)) {
          const r = await judgeTriplet(judge, judge.tool === 'ragwatch_embedded' ? undefined : proxy, t);
          records.push(r);
          if (args.out) appendFileSync(args.out, JSON.stringify(r) + '\n');
          process.stderr.write(`peers judging ${r.tool} ${r.id}: ${JSON.stringify({ faithfulness: r.faithfulness, relevancy: r.relevancy, calls: r.calls, s: Math.round(r.seconds), errors: r.errors })}\n`);
        }
      }
    }
  } finally {
    for (const j of judges) await j.close();
    await proxy.close();
    await server?.stop();
  }
  reportJudging(records, triplets);
}

if (!args['skip-ingest']) await ingest();
if (!args['skip-judging']) await judging();
