/**
 * A real Phoenix server (arize-phoenix from PyPI, pinned and hashed in tests/python/phoenix/) on
 * loopback, with its own SQLite working directory and free ports for HTTP (UI, REST API, OTLP/HTTP)
 * and OTLP/gRPC. `tests/python/phoenix/setup.sh` installs it once into a cached virtualenv (`.ci/run`
 * runs it); without Python the tests skip loudly, and fail under CI=true.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { freePort } from './process.ts';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const SETUP = resolve(import.meta.dirname, '../python/phoenix/setup.sh');

/** The virtualenv with Phoenix, installed (or found in the cache) by setup.sh; undefined (loudly) when it cannot be. */
export function phoenixVenv(suite: string): string | undefined {
  const r = spawnSync('bash', [SETUP], { encoding: 'utf8', timeout: 15 * 60_000 });
  const venv = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status === 0 && existsSync(join(venv, 'bin', 'phoenix'))) return venv;
  const msg = `${suite}: Phoenix could not be installed (bash tests/python/phoenix/setup.sh exited ${r.status}: ${(r.stderr ?? '').slice(-500)})`;
  if (process.env.CI === 'true') throw new Error(`${msg}; required under CI=true`);
  console.warn(`\n!!!!! SKIPPING ${msg} !!!!!\n`);
  return undefined;
}

/** A running Phoenix. */
export interface Phoenix {
  /** `http://127.0.0.1:<port>`: UI, REST API and OTLP/HTTP `/v1/traces`. */
  url: string;
  /** `http://127.0.0.1:<port>` of its OTLP/gRPC receiver. */
  grpcUrl: string;
  /** The server's process id (its CPU and memory in /proc: bench/peers). */
  pid: number;
  /** Stops the server and removes its working directory. Idempotent. */
  stop(): Promise<void>;
}

/** Starts `phoenix serve` from `venv` and resolves once `/healthz` answers (migrations run first: up to two minutes on a loaded machine). */
export async function startPhoenix(venv: string, timeoutMs = 180_000): Promise<Phoenix> {
  const [port, grpcPort] = [await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), 'rw-phoenix-'));
  const child: ChildProcess = spawn(join(venv, 'bin', 'phoenix'), ['serve'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      PHOENIX_HOST: '127.0.0.1',
      PHOENIX_PORT: String(port),
      PHOENIX_GRPC_PORT: String(grpcPort),
      PHOENIX_WORKING_DIR: dir,
      PHOENIX_TELEMETRY_ENABLED: 'false',
      PHOENIX_ALLOW_EXTERNAL_RESOURCES: 'false',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => void (stderr = (stderr + c.toString('utf8')).slice(-4000)));
  let exited = false;
  const gone = new Promise<void>((r) => child.once('exit', () => ((exited = true), r())));
  const stop = async () => {
    if (!exited) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(killer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited) break;
    const ok = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (ok) return { url, grpcUrl: `http://127.0.0.1:${grpcPort}`, pid: child.pid!, stop };
    await new Promise((r) => setTimeout(r, 500));
  }
  await stop();
  throw new Error(`Phoenix did not answer /healthz within ${timeoutMs} ms${exited ? ' (it exited)' : ''}: ${stderr.slice(-1500)}`);
}
