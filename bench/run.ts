/**
 * `npm run bench`: runs every benchmark in its own process (sequentially, so they do not compete
 * for the 2 cores), prints their JSON figure lines, and checks the targets. Exit 1 when a target is
 * missed — unless `--quick` (CI), which uses smaller runs and only reports.
 *
 *   npm run bench              full run (≈ 5 minutes)
 *   npm run bench -- --quick   CI mode: smaller, report only
 *   npm run bench -- processor ingest   only the named benches
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Figure } from './lib.ts';

/** Benches in run order: file under bench/ (without .ts). */
const BENCHES = ['processor', 'ingest', 'judges', 'scorer-throughput', 'kafka-produce', 'split-assembly', 'overload', 'calibration', 'weakness', 'exams', 'completeness', 'backtest'];

/** Targets from the performance issue: figure → check on the emitted line. */
const TARGETS: Record<string, { describe: string; ok: (f: Figure) => boolean }> = {
  processor_onend_ratio_vs_bsp: { describe: 'ratio <= 1.0', ok: (f) => f.ratio !== null && f.ratio <= 1.0 },
  processor_onend_p99_us: { describe: 'value < 20 us', ok: (f) => f.value < 20 },
  ingest_json_ratio_vs_parse: { describe: 'ratio >= 0.5', ok: (f) => f.ratio !== null && f.ratio >= 0.5 },
  judge_calls_per_triplet_cold: { describe: 'value <= 5', ok: (f) => f.value <= 5 },
  judge_calls_per_triplet_warm: { describe: 'value <= 3', ok: (f) => f.value <= 3 },
  scorer_throughput_ratio_vs_limit: { describe: 'ratio >= 0.9', ok: (f) => f.ratio !== null && f.ratio >= 0.9 },
  embedded_judge_ms_per_triplet: { describe: 'value < 100 ms', ok: (f) => f.value < 100 },
  rss_growth_mb_overload: { describe: 'value < 50 MB', ok: (f) => f.value < 50 },
  kafka_produce_ratio_vs_raw: { describe: 'ratio >= 0.8', ok: (f) => f.ratio !== null && f.ratio >= 0.8 },
  split_assembly_ratio_vs_local: { describe: 'ratio >= 0.5', ok: (f) => f.ratio !== null && f.ratio >= 0.5 },
  calibration_cost_ratio_vs_judge: { describe: 'ratio <= 0.01', ok: (f) => f.ratio !== null && f.ratio <= 0.01 },
  topic_assign_ratio_vs_judge: { describe: 'ratio <= 0.05', ok: (f) => f.ratio !== null && f.ratio <= 0.05 },
  sampling_topic_us_per_triplet: { describe: 'value < 20 us', ok: (f) => f.value < 20 },
  completeness_judge_ratio: { describe: 'ratio <= 1.2', ok: (f) => f.ratio !== null && f.ratio <= 1.2 },
  backtest_records_per_s: { describe: 'value >= 16667 (a million records in under a minute)', ok: (f) => f.value >= 16_667 },
};

const quick = process.argv.includes('--quick');
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const names = only.length > 0 ? only : BENCHES;
const here = fileURLToPath(new URL('.', import.meta.url));

function runOne(name: string): Promise<{ figures: Figure[]; code: number }> {
  return new Promise((resolve) => {
    const file = `${here}${name}.ts`;
    const child = spawn(process.execPath, [file, ...(quick ? ['--quick'] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
    const figures: Figure[] = [];
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line) continue;
        process.stdout.write(`${line}\n`);
        try {
          const f = JSON.parse(line) as Figure;
          if (typeof f.figure === 'string') figures.push(f);
        } catch {
          // not a figure line: already echoed
        }
      }
    });
    child.on('exit', (code) => resolve({ figures, code: code ?? 1 }));
  });
}

const seen = new Map<string, Figure>();
const failedBenches: string[] = [];
for (const name of names) {
  if (!existsSync(`${here}${name}.ts`)) {
    process.stderr.write(`bench ${name}: not present (bench/${name}.ts) — its figures are missing\n`);
    failedBenches.push(name);
    continue;
  }
  const { figures, code } = await runOne(name);
  if (code !== 0) failedBenches.push(name);
  for (const f of figures) seen.set(f.figure, f);
}

const misses: string[] = [];
for (const [figure, target] of Object.entries(TARGETS)) {
  const f = seen.get(figure);
  if (!f) {
    if (only.length === 0) misses.push(`${figure}: not measured`);
    continue;
  }
  if (!target.ok(f)) misses.push(`${figure}: ${JSON.stringify({ value: f.value, ratio: f.ratio })} misses target ${target.describe}`);
}
process.stderr.write(`\nbench summary: ${seen.size} figures; ${misses.length} target(s) missed; ${failedBenches.length} bench(es) failed${quick ? ' (quick mode: report only)' : ''}\n`);
for (const m of misses) process.stderr.write(`  - ${m}\n`);
for (const b of failedBenches) process.stderr.write(`  - bench ${b} exited non-zero or is missing\n`);
process.exitCode = !quick && (misses.length > 0 || failedBenches.length > 0) ? 1 : 0;
