/**
 * Test helpers for running ragwatch as a real child process on free loopback ports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePorts } from '../../scripts/lib/free-ports.ts';

/** Repository root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The CLI entry point. */
export const BIN = fileURLToPath(new URL('../../bin/ragwatch.js', import.meta.url));

/** A free TCP port on 127.0.0.1 for a child process to bind later (below the ephemeral range: see scripts/lib/free-ports.ts). */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

/** A spawned ragwatch process with captured output. */
export interface RagwatchProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or signal name) once the process exits. */
  exited: Promise<number | string>;
}

/** Spawns `node --max-semi-space-size=4 bin/ragwatch.js ...args` (as `npm start` and the image do) with the same Node binary as the test runner. */
export function spawnRagwatch(args: string[], env: Record<string, string> = {}): RagwatchProcess {
  const child = spawn(process.execPath, ['--max-semi-space-size=4', BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, RAGWATCH_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Polls `fn` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${lastErr ? `: ${String(lastErr)}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Reads one sample value from a Prometheus text exposition (`name{labels}` exact match on the label subset). */
export function metricValue(exposition: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let total: number | undefined;
  for (const line of exposition.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})? ([^ ]+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const lbl: Record<string, string> = {};
    for (const part of (m[3] ?? '').match(/[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"/g) ?? []) {
      const eq = part.indexOf('=');
      lbl[part.slice(0, eq)] = part.slice(eq + 2, -1);
    }
    if (Object.entries(labels).every(([k, v]) => lbl[k] === v)) total = (total ?? 0) + Number(m[4]);
  }
  return total;
}
