/**
 * The documented way to run and stop ragwatch: `npm start`, then SIGTERM (or Ctrl-C) to that
 * process stops the server too (npm → sh used to leave it running as an orphan); logs are readable
 * on a terminal (pretty) and JSON lines elsewhere.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { haveBinaries } from '../helpers/prometheus.ts';
import { BIN, ROOT, waitFor } from '../helpers/process.ts';

const ENV = { ...process.env, RAGWATCH_HTTP_PORT: '0', RAGWATCH_OTLP_PORT: '0', RAGWATCH_OTLP_GRPC_PORT: '0', RAGWATCH_LOG_LEVEL: 'info', RAGWATCH_LOG_FORMAT: 'auto', CI: process.env.CI ?? '' };

/** Every descendant pid of `pid` (Linux /proc). */
function descendants(pid: number): number[] {
  const out: number[] = [];
  for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)) out.push(child, ...descendants(child));
  return out;
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!existsSync('/proc/self/task'))('npm start', () => {
  it('SIGTERM to the npm process stops the ragwatch server (no orphan)', async () => {
    // npm scripts find the project's Node 22 first on PATH, as `npm start` in a shell does.
    const npm = spawn('npm', ['start', '--silent'], { cwd: ROOT, env: { ...ENV, PATH: `${dirname(process.execPath)}:${process.env.PATH}` }, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    npm.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise((resolve) => npm.once('exit', resolve));
    await waitFor(() => err.includes('ragwatch started'), 30_000);
    const pids = descendants(npm.pid!);
    expect(pids.length).toBeGreaterThan(0);
    npm.kill('SIGTERM');
    await exited;
    await waitFor(() => pids.every((p) => !alive(p)), 15_000);
    expect(err).toMatch(/"msg":"stopped"/);
  }, 60_000);
});

describe.skipIf(!haveBinaries('pretty logs on a terminal', 'script'))('log format', () => {
  it('pretty on a terminal, JSON lines when stderr is not one', async () => {
    // util-linux `script` gives the process a pseudo-terminal.
    const tty = spawn('script', ['-qec', `${process.execPath} ${BIN} start`, '/dev/null'], { cwd: ROOT, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let screen = '';
    tty.stdout.on('data', (d: Buffer) => (screen += d.toString()));
    try {
      await waitFor(() => screen.includes('ragwatch started'), 30_000);
    } finally {
      tty.kill('SIGTERM');
    }
    expect(screen).toMatch(/\[\d\d:\d\d:\d\d\.\d{3}\] .*INFO.*: .*ragwatch started/);
    expect(screen).not.toContain('{"level"');

    const piped = spawn(process.execPath, [BIN, 'start'], { cwd: ROOT, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    piped.stderr.on('data', (d: Buffer) => (err += d.toString()));
    try {
      await waitFor(() => err.includes('ragwatch started'), 30_000);
    } finally {
      piped.kill('SIGTERM');
    }
    for (const line of err.trim().split('\n')) expect(() => JSON.parse(line), line).not.toThrow();
  }, 60_000);
});
