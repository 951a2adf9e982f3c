/**
 * Shared benchmark helpers: every figure is one JSON line
 * `{"bench","figure","value","unit","baseline","ratio"}` on stdout.
 */

/** One measured figure. `baseline`/`ratio` are null when the figure has no same-run baseline. */
export interface Figure {
  bench: string;
  figure: string;
  value: number;
  unit: string;
  baseline: number | null;
  ratio: number | null;
}

/** Prints a figure as one JSON line (numbers rounded to 4 significant digits). */
export function emit(f: Figure): void {
  const r = (n: number | null) => (n === null ? null : Number(n.toPrecision(4)));
  process.stdout.write(`${JSON.stringify({ ...f, value: r(f.value), baseline: r(f.baseline), ratio: r(f.ratio) })}\n`);
}

/** True when `--quick` was passed or BENCH_QUICK=1 (CI: smaller iteration counts, report only). */
export const QUICK = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';

/** The p-th percentile (0..100) of a numeric array. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

/** Median of several runs, to damp noise on shared machines. */
export function median(values: number[]): number {
  return percentile(values, 50);
}

/**
 * Runs `fn` under the V8 CPU profiler when BENCH_PROFILE_DIR is set, writing
 * `<dir>/<name>.cpuprofile` (open in Chrome DevTools); otherwise just runs it. Profiles only the
 * measured section, not the set-up.
 */
export async function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_PROFILE_DIR;
  if (!dir) return fn();
  const { Session } = await import('node:inspector/promises');
  const { writeFileSync, mkdirSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${dir}/${name}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  }
}
