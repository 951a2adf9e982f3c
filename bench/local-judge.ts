/**
 * The local judge's cost on the real model (Qwen2.5-Coder-1.5B-Instruct GGUF, the test fixture of
 * scripts/models/fetch-test-model.sh), through the product path (LocalJudge, model cache, node-llama-cpp
 * on the CPU), and what its runtime adds to node_modules:
 *  - model load time (runtime + weights), RSS with the model loaded and judging;
 *  - per-answer CPU and wall time at ≈ 200, 1,000 and 3,000 prompt tokens (quick: 200 and 1,000), each
 *    a fresh document (no KV-cache reuse), and the answers judged per minute at ≈ 200 tokens; the
 *    embedded judge on the same answers is the same-run baseline;
 *  - the event loop's p99 delay while the model judges (it runs on llama.cpp's threads);
 *  - HaluEval development-file AUC of claim_support on a small sample (quick: 12 rows; full: 60),
 *    reported, not gated (the full figures: scripts/local-judge-halueval.ts, docs/judges.md).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { auc } from '../src/calibration/measures.ts';
import { EmbeddedJudge } from '../src/judges/embedded/embedded-judge.ts';
import { LocalJudge } from '../src/judges/local/local-judge.ts';
import { ModelCache } from '../src/models/cache.ts';
import type { SampledTriplet } from '../src/triplet.ts';
import { testModelPathOnDisk } from '../tests/helpers/test-model.ts';
import { QUICK, emit, median } from './lib.ts';

const BENCH = 'local-judge';
const modelPath = testModelPathOnDisk();
if (!existsSync(modelPath)) {
  process.stderr.write(`\n!!!!! bench local-judge: no model at ${modelPath} — run bash scripts/models/fetch-test-model.sh !!!!!\n`);
  // Under CI the model must be there unless .ci/run could not download it (then its figures are reported missing).
  process.exit(process.env.CI === 'true' && process.env.RAGWATCH_TEST_MODEL_UNAVAILABLE === undefined ? 1 : 0);
}

/** node_modules added by the runtime: packages reachable only through node-llama-cpp in the lockfile. */
function nodeModulesAddedMb(): number {
  const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8')) as { packages: Record<string, { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string>; dev?: boolean }> };
  const root = lock.packages[''] as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  const resolve = (from: string, name: string): string | undefined => {
    for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
      const key = `${dir ? `${dir}/` : ''}node_modules/${name}`;
      if (lock.packages[key]) return key;
      if (!dir) return undefined;
    }
  };
  const reach = (starts: string[]): Set<string> => {
    const seen = new Set<string>();
    const stack = starts.map((n) => resolve('', n)).filter((k): k is string => k !== undefined);
    while (stack.length) {
      const k = stack.pop()!;
      if (seen.has(k)) continue;
      seen.add(k);
      const p = lock.packages[k]!;
      for (const d of Object.keys({ ...p.dependencies, ...p.optionalDependencies })) {
        const r = resolve(k, d);
        if (r) stack.push(r);
      }
    }
    return seen;
  };
  const others = reach(Object.keys({ ...root.dependencies, ...root.devDependencies }).filter((n) => n !== 'node-llama-cpp'));
  let bytes = 0;
  for (const k of reach(['node-llama-cpp'])) {
    if (others.has(k) || !existsSync(k)) continue;
    bytes += Number(execFileSync('du', ['-sb', k], { encoding: 'utf8' }).split('\t')[0]);
  }
  return bytes / 1e6;
}
emit({ bench: BENCH, figure: 'local_judge_node_modules_mb', value: nodeModulesAddedMb(), unit: 'MB', baseline: null, ratio: null });

interface Row { knowledge: string; question: string; right_answer: string; hallucinated_answer: string }
const rows = readFileSync(new URL('../../shared/data/halueval/qa_one_turn.jsonl', import.meta.url), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row);
const triplet = (id: string, query: string, sources: string[], response: string): SampledTriplet => ({
  id, traceId: id.padStart(32, '0'), spanId: '1'.repeat(16), service: 'bench', timestamp: new Date(0).toISOString(), query,
  sources: sources.map((content) => ({ content })), response, latency: { durationMs: 0 }, convention: 'custom', sampling: { weight: 1, stratum: 'all', rule: 'all' },
});

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-bench-models-'));
try {
  const cache = new ModelCache(dir);
  await cache.add(modelPath);
  const judge = new LocalJudge({ cache, threads: 2, requireModel: true, maxQueue: 1000, embedded: { threads: 2 } });
  const embedded = new EmbeddedJudge({ threads: 2 });
  const loadStarted = performance.now();
  await judge.init();
  emit({ bench: BENCH, figure: 'local_judge_load_ms', value: performance.now() - loadStarted, unit: 'ms', baseline: null, ratio: null });
  await embedded.init();

  // Documents of about N prompt tokens: consecutive development-file passages (≈ 100 tokens each), one answer sentence.
  const sizes = QUICK ? [200, 1000] : [200, 1000, 3000];
  const perSize = QUICK ? 3 : 5;
  const loop = monitorEventLoopDelay({ resolution: 5 });
  let next = 0;
  for (const tokens of sizes) {
    const wall: number[] = [];
    const cpu: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < perSize; i++) {
      const passages: string[] = [];
      let chars = 0;
      while (chars < tokens * 3.6) {
        const r = rows[next++ % rows.length]!;
        passages.push(r.knowledge);
        chars += r.knowledge.length;
      }
      const r = rows[next++ % rows.length]!;
      const t = triplet(`s${tokens}-${i}`, r.question, [...passages, r.knowledge], `${r.right_answer.replace(/\.?$/, '.')}`);
      const e0 = performance.now();
      await embedded.score(t);
      base.push(performance.now() - e0);
      if (tokens === sizes[0] && i === 0) loop.enable();
      const c0 = process.cpuUsage();
      const w0 = performance.now();
      const res = await judge.score(t);
      wall.push(performance.now() - w0);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
      if (!res.ok || res.scores.claim_support === undefined) throw new Error(`local judge gave no claim_support: ${JSON.stringify(res.ok ? res.skipped : res.error.message)}`);
    }
    const w = median(wall);
    emit({ bench: BENCH, figure: `local_judge_wall_ms_${tokens}_tokens`, value: w, unit: 'ms', baseline: median(base), ratio: w / median(base) });
    emit({ bench: BENCH, figure: `local_judge_cpu_ms_${tokens}_tokens`, value: median(cpu), unit: 'ms', baseline: null, ratio: null });
    if (tokens === 200) emit({ bench: BENCH, figure: 'local_judge_answers_per_minute_200_tokens', value: 60_000 / w, unit: 'answers/min', baseline: null, ratio: null });
  }
  loop.disable();
  emit({ bench: BENCH, figure: 'local_judge_event_loop_p99_ms', value: loop.percentile(99) / 1e6, unit: 'ms', baseline: null, ratio: null });

  // A small development-file sample through the product path (reported only: too few rows to gate).
  const sample = rows.slice(0, QUICK ? 12 : 60);
  const flaggedScore: number[] = [];
  const rightScore: number[] = [];
  for (const [i, r] of sample.entries()) {
    for (const [label, answer] of [[1, r.right_answer], [0, r.hallucinated_answer]] as const) {
      const res = await judge.score(triplet(`h${i}-${label}`, r.question, [r.knowledge], answer));
      const s = res.ok ? res.scores.claim_support : undefined;
      if (s !== undefined) (label === 1 ? rightScore : flaggedScore).push(s);
    }
  }
  const sampleAuc = auc([...rightScore, ...flaggedScore], [...rightScore.map(() => 1 as const), ...flaggedScore.map(() => 0 as const)]) ?? Number.NaN;
  emit({ bench: BENCH, figure: 'local_judge_halueval_dev_sample_auc', value: sampleAuc, unit: 'auc', baseline: null, ratio: null });
  emit({ bench: BENCH, figure: 'local_judge_rss_mb', value: process.memoryUsage().rss / 1e6, unit: 'MB', baseline: null, ratio: null });
  await judge.shutdown();
  await embedded.shutdown();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
