/**
 * A real OpenAI-compatible server for the LLM judge's integration tests: llama.cpp's server from
 * llama-cpp-python[server] (built once from its sdist by `tests/python/llama-server/setup.sh`, cached
 * under ~/.cache/ragwatch/python) serving the test model (`tests/helpers/test-model.ts`) on a free
 * loopback port. `.ci/run` runs the setup; without it the tests skip loudly, and fail under CI=true.
 * The scripted fake (`tests/fakes/openai-server.ts`) stays for the faults a real model cannot be made
 * to produce on purpose (429 with Retry-After, 500s, hangs, truncated streams).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePorts } from '../../scripts/lib/free-ports.ts';

const SETUP = resolve(import.meta.dirname, '../python/llama-server/setup.sh');

/** The model name the server answers to (`--model_alias`). */
export const LLAMA_SERVER_MODEL = 'qwen2.5-coder-1.5b-instruct';

/**
 * The virtualenv with llama-cpp-python[server], installed (or found in the cache) by setup.sh;
 * undefined (loudly) when it cannot be, an error under CI=true. A first run builds the wheel (10–20 min
 * on 2 cores).
 */
export function llamaServerVenv(suite: string): string | undefined {
  const r = spawnSync('bash', [SETUP], { encoding: 'utf8', timeout: 40 * 60_000 });
  const venv = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  if (r.status === 0 && existsSync(join(venv, 'bin', 'python'))) return venv;
  const msg = `${suite}: llama-cpp-python's server could not be installed (bash tests/python/llama-server/setup.sh exited ${r.status}: ${(r.stderr ?? '').slice(-500)})`;
  if (process.env.CI === 'true') throw new Error(`${msg}; required under CI=true`);
  console.warn(`\n!!!!! SKIPPING ${msg} !!!!!\n`);
  return undefined;
}

/** Options of {@link startLlamaServer}. */
export interface LlamaServerOptions {
  /** The virtualenv from {@link llamaServerVenv}. */
  venv: string;
  /** The GGUF file to serve. */
  modelPath: string;
  /** The context window in tokens (`--n_ctx`). Default 4096. */
  ctxSize?: number;
  /** CPU threads (`--n_threads`). Default: the server's (half the cores). */
  threads?: number;
  /** How long to wait for `/v1/models` to answer. Default 180000. */
  startTimeoutMs?: number;
}

/** A running server. */
export interface LlamaServer {
  /** `http://127.0.0.1:<port>/v1`: the judge's `baseUrl`. */
  baseUrl: string;
  /** The model name it serves. */
  model: string;
  /** The context window it was started with. */
  ctxSize: number;
  /** Its last lines of output (for failure messages). */
  log(): string;
  /** Stops the server. Idempotent. */
  stop(): Promise<void>;
}

/** Starts `python -m llama_cpp.server` and resolves once `/v1/models` answers with the model loaded. */
export async function startLlamaServer(options: LlamaServerOptions): Promise<LlamaServer> {
  const [port] = await freePorts(1);
  const ctxSize = options.ctxSize ?? 4096;
  const args = ['-m', 'llama_cpp.server', '--model', options.modelPath, '--model_alias', LLAMA_SERVER_MODEL, '--host', '127.0.0.1', '--port', String(port), '--n_ctx', String(ctxSize)];
  if (options.threads !== undefined) args.push('--n_threads', String(options.threads));
  const child: ChildProcess = spawn(join(options.venv, 'bin', 'python'), args, {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (c: Buffer) => void (output = (output + c.toString('utf8')).slice(-6000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  const gone = new Promise<void>((r) => child.once('exit', () => ((exited = true), r())));
  const stop = async () => {
    if (exited) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(killer);
  };
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 180_000);
  while (Date.now() < deadline && !exited) {
    const ok = await fetch(`${baseUrl}/models`).then((r) => r.ok, () => false);
    if (ok) return { baseUrl, model: LLAMA_SERVER_MODEL, ctxSize, log: () => output, stop };
    await new Promise((r) => setTimeout(r, 500));
  }
  await stop();
  throw new Error(`llama-cpp-python's server did not answer ${baseUrl}/models${exited ? ' (it exited)' : ' in time'}: ${output.slice(-1500)}`);
}
