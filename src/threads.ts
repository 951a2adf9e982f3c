/**
 * Starting ragwatch's own worker threads (the embedding model, the Kafka producer) so that they run
 * only their own script: without the host's main code and without its preload modules.
 * @module
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { workerEnv } from './config/env.ts';

/**
 * Options that name the process's main code (`-e script`, `--input-type=module`: Node refuses them
 * in a worker) or preload modules (`--import`, `--require`, loaders). A preload is often the host's
 * OpenTelemetry set-up: run again in our worker it would trace our own Kafka calls, or start a
 * second ragwatch inside the worker, which would start its own worker, and so on.
 */
const MAIN_CODE_OPTIONS = new Set(['-e', '--eval', '-p', '--print', '--input-type', '-r', '--require', '--import', '--loader', '--experimental-loader']);

/** The parent's Node options a worker should get: `execArgv` without {@link MAIN_CODE_OPTIONS}. */
export function workerExecArgv(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    const name = arg.split('=', 1)[0]!;
    if (!MAIN_CODE_OPTIONS.has(name)) out.push(arg);
    // The value of the two-word form (`-e <script>`, `--import ./otel.mjs`) goes too.
    else if (!arg.includes('=')) i++;
  }
  return out;
}

/**
 * A worker on `script` with the parent's Node options as Node inherits them by default — unless some
 * must go (see {@link workerExecArgv}): then the rest are passed explicitly, and if Node refuses
 * those (it validates an explicit list and refuses V8 flags, which apply to every thread anyway),
 * none. `NODE_OPTIONS` is left out of the worker's environment: Node runs its preloads in every
 * worker whatever `execArgv` says.
 */
export function startWorker(script: URL, options: Omit<WorkerOptions, 'execArgv' | 'env'> = {}): Worker {
  const env = workerEnv();
  const own = workerExecArgv(process.execArgv);
  if (own.length === process.execArgv.length) return new Worker(script, { ...options, env });
  try {
    return new Worker(script, { ...options, env, execArgv: own });
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw err;
    return new Worker(script, { ...options, env, execArgv: [] });
  }
}

/** URL of a worker script beside `moduleUrl`, in the same build: sources (`.ts`, Node strips types) or dist (`.js`). */
export function siblingScript(moduleUrl: string, name: string): URL {
  return new URL(`./${name}${moduleUrl.endsWith('.ts') ? '.ts' : '.js'}`, moduleUrl);
}

/** Runs `script` once on a worker of its own with `data` (as `workerData`) and resolves with its one message. */
export function runWorkerOnce<T>(script: URL, data: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(script, { workerData: data });
    worker.once('message', (result: T) => {
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`worker ${script.pathname.split('/').pop()} exited with code ${code} before answering`)));
  });
}
