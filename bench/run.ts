/**
 * `npm run bench`: runs every benchmark in its own process (sequentially, so they do not compete
 * for the 2 cores), prints their JSON figure lines, and checks the targets (bench/targets.ts). Exit 1
 * when a target is missed; with `--quick` (CI: smaller runs) only when a gated figure — stable in
 * quick mode: memory, calls, tokens, a hot path's p99, failures — misses, or a bench fails.
 *
 *   npm run bench              full run (≈ 5 minutes)
 *   npm run bench -- --quick   CI mode: smaller; fails on the gated figures
 *   npm run bench -- processor ingest   only the named benches
 *   npm run bench -- --quick --figures FILE   check saved figure lines (one JSON per line) instead of running
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Figure } from './lib.ts';
import { checkFigures } from './targets.ts';

/** Benches in run order: file under bench/ (without .ts), or a folder under bench/ with its main.ts (peers). */
const BENCHES = ['processor', 'ingest', 'ingest-grpc', 'judges', 'scorer-throughput', 'kafka-produce', 'split-assembly', 'split-pipeline', 'overload', 'plugin-rss', 'calibration', 'weakness', 'exams', 'completeness', 'backtest', 'slices', 'history', 'answers', 'local-judge', 'peers'];

const quick = process.argv.includes('--quick');
const only = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && all[i - 1] !== '--figures');
const names = only.length > 0 ? only : BENCHES;
const here = fileURLToPath(new URL('.', import.meta.url));
/** A bench's entry: bench/<name>.ts, else bench/<name>/main.ts. */
const benchFile = (name: string) => (existsSync(`${here}${name}.ts`) ? `${here}${name}.ts` : `${here}${name}/main.ts`);

function runOne(name: string): Promise<{ figures: Figure[]; code: number }> {
  return new Promise((resolve) => {
    const file = benchFile(name);
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
const figuresFile = process.argv.includes('--figures') ? process.argv[process.argv.indexOf('--figures') + 1] : undefined;
if (figuresFile) {
  for (const line of readFileSync(figuresFile, 'utf8').split('\n')) {
    if (!line.trim().startsWith('{')) continue;
    const f = JSON.parse(line) as Figure;
    if (typeof f.figure === 'string') seen.set(f.figure, f);
  }
} else {
  for (const name of names) {
    if (!existsSync(benchFile(name))) {
      process.stderr.write(`bench ${name}: not present (bench/${name}.ts or bench/${name}/main.ts) — its figures are missing\n`);
      failedBenches.push(name);
      continue;
    }
    const { figures, code } = await runOne(name);
    if (code !== 0) failedBenches.push(name);
    for (const f of figures) seen.set(f.figure, f);
  }
}

const { misses, failed } = checkFigures(seen, { quick, allBenches: only.length === 0 && !figuresFile });
process.stderr.write(`\nbench summary: ${seen.size} figures; ${misses.length} target(s) missed (${misses.filter((m) => m.fails).length} failing${quick ? ' in quick mode: the gated ones' : ''}); ${failedBenches.length} bench(es) failed\n`);
for (const m of misses) process.stderr.write(`  - ${m.fails ? 'FAIL' : 'report'} ${m.text}\n`);
for (const b of failedBenches) process.stderr.write(`  - FAIL bench ${b} exited non-zero or is missing\n`);
process.exitCode = failed || failedBenches.length > 0 ? 1 : 0;
