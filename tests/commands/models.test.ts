/**
 * The local judge's model as users handle it, through the CLI (no model needed: a missing one is the
 * point): `ragwatch models add|list|remove` on a small GGUF; `ragwatch start` with `judge.kind: local`
 * and an empty cache says in one line which command to run, answers /readyz 503 and keeps running
 * (no crash loop) while it scores with the rest of the judge; with `judge.kind` unset it stays on the
 * embedded judge and says how to get the local one.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, freePort, spawnRagwatch, waitFor } from '../helpers/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-models-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env } }, (_e, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }));
  });
}

describe('ragwatch models', () => {
  it('adds, lists and removes a model; refuses a file that is not GGUF, naming it', async () => {
    const env = { RAGWATCH_MODEL_CACHE: join(dir, 'cache') };
    const file = join(dir, 'mine.gguf');
    writeFileSync(file, 'GGUF tiny test weights');
    const added = await run(['models', 'add', file, '--name', 'my-judge', '--licence', 'MIT'], env);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/my-judge: verified \(sha256 [0-9a-f]{16}…\) and cached at .*my-judge\.gguf/);
    const listed = await run(['models', 'list'], env);
    expect(listed.stdout).toMatch(/qwen2\.5-coder-1\.5b-instruct\s+missing .*licence Apache-2\.0 {2}\(judge\.local\.model\)/);
    expect(listed.stdout).toMatch(/my-judge\s+cached .*licence MIT/);
    writeFileSync(join(dir, 'bad.gguf'), 'not a model');
    const bad = await run(['models', 'add', join(dir, 'bad.gguf'), '--name', 'bad'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('is not a GGUF file');
    expect((await run(['models', 'remove', 'my-judge'], env)).stdout).toContain('my-judge: removed');
    const unknown = await run(['models', 'pull', 'no-such-model'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no model "no-such-model" in the catalogue');
    // Six CLI processes, each loading the command tree: 25 s on 2 busy cores.
  }, 90_000);

  it('ragwatch start with the local judge and no model: one line naming the command, /readyz 503, still running', async () => {
    const httpPort = await freePort();
    const p = spawnRagwatch(['start'], {
      RAGWATCH_JUDGE: 'local',
      RAGWATCH_MODEL_CACHE: join(dir, 'empty'),
      RAGWATCH_DATA_DIR: join(dir, 'data-missing'),
      RAGWATCH_HTTP_PORT: String(httpPort),
      RAGWATCH_OTLP_PORT: String(await freePort()),
      RAGWATCH_OTLP_GRPC_PORT: String(await freePort()),
    });
    try {
      await waitFor(() => p.stderr().includes('is not in the model cache'), 30_000, 100);
      const lines = p.stderr().split('\n').filter((l) => l.includes('is not in the model cache'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('run `ragwatch models pull qwen2.5-coder-1.5b-instruct`');
      const ready = await fetch(`http://127.0.0.1:${httpPort}/readyz`);
      expect(ready.status).toBe(503);
      await new Promise((r) => setTimeout(r, 1_000));
      expect(p.child.exitCode).toBeNull();
      expect((await fetch(`http://127.0.0.1:${httpPort}/healthz`)).status).toBe(200);
    } finally {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  });

  it('ragwatch start with judge.kind unset and no model: the embedded judge, and one line on how to get the local one', async () => {
    const httpPort = await freePort();
    const p = spawnRagwatch(['start'], {
      RAGWATCH_MODEL_CACHE: join(dir, 'empty'),
      RAGWATCH_DATA_DIR: join(dir, 'data-default'),
      RAGWATCH_HTTP_PORT: String(httpPort),
      RAGWATCH_OTLP_PORT: String(await freePort()),
      RAGWATCH_OTLP_GRPC_PORT: String(await freePort()),
    });
    try {
      await waitFor(() => p.stderr().includes('judge ready'), 60_000, 100);
      expect(p.stderr()).toContain('judging with the embedded judge');
      expect(p.stderr()).toContain('ragwatch models pull qwen2.5-coder-1.5b-instruct');
      expect(p.stderr()).toMatch(/"judge":"embedded","msg":"judge ready"/);
    } finally {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  });
});
