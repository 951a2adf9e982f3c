import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { workerExecArgv } from '../src/threads.ts';

describe('workerExecArgv', () => {
  it('keeps the Node options but drops those about the main code, in both spellings', () => {
    expect(workerExecArgv(['--max-semi-space-size=4', '--input-type=module', '-e', 'await main()', '--conditions', 'dev'])).toEqual(['--max-semi-space-size=4', '--conditions', 'dev']);
    expect(workerExecArgv(['--input-type', 'module', '--eval=1', '-p', 'x', '--print', 'y', '--enable-source-maps'])).toEqual(['--enable-source-maps']);
  });

  it('drops preload modules (the host’s OpenTelemetry set-up must not run in our threads)', () => {
    expect(workerExecArgv(['--import', './otel.mjs', '--require=./a.cjs', '-r', './b.cjs', '--experimental-loader', 'x', '--loader=y', '--trace-warnings'])).toEqual(['--trace-warnings']);
  });
});

describe('startWorker', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ragwatch-threads-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // The preload says where it ran; the worker only answers.
  writeFileSync(join(dir, 'preload.mjs'), "import { isMainThread } from 'node:worker_threads';\nconsole.log(isMainThread ? 'preload:main' : 'preload:worker');\n");
  writeFileSync(join(dir, 'worker.mjs'), "import { parentPort } from 'node:worker_threads';\nparentPort.postMessage('worker:ran');\n");
  const threads = new URL('../src/threads.ts', import.meta.url).href;
  writeFileSync(
    join(dir, 'main.mjs'),
    `const { startWorker } = await import(${JSON.stringify(threads)});
const worker = startWorker(new URL('./worker.mjs', import.meta.url));
worker.on('message', (m) => { console.log(m); void worker.terminate(); });\n`,
  );

  it.each([
    ['a command-line preload', ['--import', './preload.mjs'], {}],
    ['a NODE_OPTIONS preload', [], { NODE_OPTIONS: '--import ./preload.mjs' }],
    ['a preload and a V8 flag', ['--max-semi-space-size=4', '--import=./preload.mjs'], {}],
  ])('runs only its own script in a process started with %s', (_name, options, env) => {
    const child = spawnSync(process.execPath, [...options, 'main.mjs'], { cwd: dir, encoding: 'utf8', timeout: 30_000, env: { ...process.env, ...env } });
    expect(child.stderr).toBe('');
    expect(child.stdout.trim().split('\n').sort()).toEqual(['preload:main', 'worker:ran']);
  });
});
