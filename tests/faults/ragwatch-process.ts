/**
 * Runs `ragwatch start` as a child process (the real CLI from the sources, on the Node that runs
 * the tests) with a temporary YAML config, and reads its JSON log lines from stderr.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

/** A running `ragwatch start`. */
export interface RagwatchProcess {
  child: ChildProcess;
  pid: number;
  otlpUrl: string;
  apiUrl: string;
  /** Every stderr line, parsed when JSON. */
  logs: Array<Record<string, unknown>>;
  /** Raw stderr + stdout text (for canary checks). */
  output(): string;
  /** Resolves when the process exits, with the code/signal and the time of exit. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>;
  /** Resident set size in bytes, from /proc (Linux). */
  rssBytes(): number | undefined;
  /** SIGKILLs the process if still running and removes the temp dir. Idempotent. */
  cleanup(): Promise<void>;
}

/** Options of {@link startRagwatch}. */
export interface StartOptions {
  /** Role to run. Default `start`. */
  command?: 'start' | 'collector' | 'scorer';
  /** Default 30000. */
  startTimeoutMs?: number;
}

/** Starts `ragwatch <command> -c <tmp.yaml>` and resolves once its servers listen (its "started" log line). */
export async function startRagwatch(config: Record<string, unknown>, options: StartOptions = {}): Promise<RagwatchProcess> {
  const command = options.command ?? 'start';
  const dir = mkdtempSync(join(tmpdir(), 'ragwatch-fault-'));
  const file = join(dir, 'ragwatch.yaml');
  // JSON is valid YAML.
  writeFileSync(file, JSON.stringify(config));
  const script = `const { main } = await import(${JSON.stringify(CLI)}); await main(process.argv.slice(1));`;
  // Only the test's config counts: no RAGWATCH_* / OPENAI_* overrides from the caller's environment.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('RAGWATCH_') && !k.startsWith('OPENAI_')));
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, command, '-c', file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: Array<Record<string, unknown>> = [];
  let raw = '';
  let pending = '';
  let started: (v: { otlp: string; metrics: string }) => void;
  const startedP = new Promise<{ otlp: string; metrics: string }>((r) => (started = r));
  child.stdout!.on('data', (c: Buffer) => (raw += c.toString()));
  child.stderr!.on('data', (c: Buffer) => {
    const s = c.toString();
    raw += s;
    pending += s;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      try {
        const rec = JSON.parse(line) as Record<string, unknown>;
        logs.push(rec);
        if (typeof rec.msg === 'string' && /^ragwatch (?:\w+ )?started$/.test(rec.msg)) started({ otlp: String(rec.otlp ?? ''), metrics: String(rec.metrics) });
      } catch {
        logs.push({ text: line });
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, atMs: performance.now() })),
  );
  let cleaned: Promise<void> | undefined;
  const cleanup = () =>
    (cleaned ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    })());
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`ragwatch did not start:\n${raw.slice(-2000)}`)), options.startTimeoutMs ?? 30_000).unref());
  const early = exited.then((e) => Promise.reject(new Error(`ragwatch exited early (${e.code ?? e.signal}):\n${raw.slice(-2000)}`)));
  let urls: { otlp: string; metrics: string };
  try {
    urls = await Promise.race([startedP, timeout, early]);
  } catch (err) {
    await cleanup();
    throw err;
  }
  early.catch(() => undefined);
  return {
    child,
    pid: child.pid!,
    otlpUrl: urls.otlp,
    apiUrl: urls.metrics.replace(/\/metrics$/, ''),
    logs,
    output: () => raw,
    exited,
    rssBytes() {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        return m ? Number(m[1]) * 1024 : undefined;
      } catch {
        return undefined;
      }
    },
    cleanup,
  };
}

/** Polls `url` until it answers 200 (e.g. `/readyz` once the judge is loaded). */
export async function waitFor200(url: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`${url} not ready within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Parses Prometheus text exposition into `name{labels}` → value. */
export function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(\S+?(?:\{.*\})?)\s+(\S+)(?:\s+\S+)?$/.exec(line);
    if (m) out.set(m[1]!, Number(m[2]));
  }
  return out;
}

/** Sum of every series of `name`, optionally filtered by a label predicate on the series key. */
export function sumMetric(metrics: Map<string, number>, name: string, filter: (series: string) => boolean = () => true): number {
  let total = 0;
  for (const [k, v] of metrics) if ((k === name || k.startsWith(`${name}{`)) && filter(k)) total += v;
  return total;
}
