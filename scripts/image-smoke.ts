/**
 * Container image smoke test without a Docker engine: runs the Dockerfile's own steps (parsed by
 * scripts/lib/dockerfile.ts, so they cannot drift) in clean directories — one per stage, the
 * build context filtered by .dockerignore, `node`/`npm` of Node 22 standing in for `node:22-slim` —
 * then starts the final stage's ENTRYPOINT + CMD as its non-root USER, sends one RAG trace and
 * checks that the embedded judge scored it, that dev dependencies are absent, and that SIGTERM
 * stops it cleanly.
 *
 *   node scripts/image-smoke.ts [--keep]
 * @module
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, matchesGlob, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { numericUser, parseDockerfile, type Stage } from './lib/dockerfile.ts';
import { freePorts } from './lib/free-ports.ts';
import { CLOCK_TOWER, openInferenceTrace } from './lib/otlp-trace.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const keep = process.argv.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'ragwatch-image-'));
const log = (msg: string) => process.stdout.write(`[image-smoke] ${msg}\n`);

/**
 * A private npm cache for the RUN steps (the Dockerfile runs `npm cache clean --force`, which must
 * not wipe the developer's cache), seeded with hard links to ~/.npm so installs stay fast.
 */
function npmCache(): string {
  const cache = join(work, 'npm-cache');
  const home = join(process.env.HOME ?? '/root', '.npm', '_cacache');
  if (existsSync(home) && spawnSync('cp', ['-al', home, join(cache, '_cacache')]).status === 0) return cache;
  mkdirSync(cache, { recursive: true });
  return cache;
}

/** `node` and `npm` of Node 22, as the node:22-slim base image provides them. */
function baseImageBin(): string {
  const bin = join(work, 'base', 'bin');
  mkdirSync(bin, { recursive: true });
  const node = realpathSync(join(ROOT, 'node_modules', '.bin', 'node'));
  const npmCli = realpathSync(spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim());
  writeFileSync(join(bin, 'node'), `#!/bin/sh\nexec "${node}" "$@"\n`);
  writeFileSync(join(bin, 'npm'), `#!/bin/sh\nexec "${node}" "${npmCli}" "$@"\n`);
  chmodSync(join(bin, 'node'), 0o755);
  chmodSync(join(bin, 'npm'), 0o755);
  return bin;
}

function dockerignore(): string[] {
  const file = join(ROOT, '.dockerignore');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

function ignored(rel: string, patterns: readonly string[]): boolean {
  const parts = rel.split('/');
  return patterns.some((p) => parts.some((_, i) => matchesGlob(parts.slice(0, i + 1).join('/'), p)));
}

interface StageState {
  root: string;
  workdir: string;
  env: Record<string, string>;
}

function inStage(state: StageState, path: string): string {
  return path.startsWith('/') ? join(state.root, path) : join(state.root, state.workdir, path);
}

function copy(src: string, dest: string, patterns: readonly string[] | undefined, contextRoot: string): void {
  const destIsDir = dest.endsWith('/') || dest.endsWith('.');
  const target = destIsDir || statSync(src).isDirectory() ? (statSync(src).isDirectory() ? dest : join(dest, basename(src))) : dest;
  mkdirSync(statSync(src).isDirectory() ? target : dirname(target), { recursive: true });
  cpSync(src, target, {
    recursive: true,
    filter: (p) => !patterns || !ignored(relative(contextRoot, p) || '.', patterns),
  });
}

function runStage(stage: Stage, states: Map<string, StageState>, bin: string, cache: string): StageState {
  if (!/^node:22(\.|-|$)/.test(stage.base)) throw new Error(`stage ${stage.name}: base ${stage.base} is not Node 22 (this smoke test stands in node:22 only)`);
  const state: StageState = { root: join(work, 'stages', stage.name), workdir: '/', env: {} };
  mkdirSync(state.root, { recursive: true });
  const patterns = dockerignore();
  for (const step of stage.steps) {
    if (step.op === 'WORKDIR') {
      state.workdir = step.path;
      mkdirSync(inStage(state, '.'), { recursive: true });
    } else if (step.op === 'ENV') {
      Object.assign(state.env, step.vars);
    } else if (step.op === 'COPY') {
      const from = step.from ? states.get(step.from) : undefined;
      if (step.from && !from) throw new Error(`COPY --from=${step.from}: no such stage`);
      for (const source of step.sources) {
        const src = from ? inStage(from, source) : join(ROOT, source);
        if (!from && ignored(source, patterns)) throw new Error(`COPY ${source}: excluded by .dockerignore`);
        if (!existsSync(src)) throw new Error(`COPY ${source}: not found`);
        copy(src, inStage(state, step.dest), from ? undefined : patterns, ROOT);
      }
    } else {
      log(`${stage.name}: RUN ${step.command}`);
      const started = Date.now();
      const res = spawnSync('sh', ['-c', step.command], {
        cwd: inStage(state, '.'),
        // The host's npm settings (registry, proxy CA) as a `docker build` on this network would need them.
        env: { ...process.env, PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`, npm_config_cache: cache, npm_config_update_notifier: 'false', ...state.env },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      if (res.status !== 0) throw new Error(`${stage.name}: RUN ${step.command} failed with ${res.status ?? res.signal}`);
      log(`${stage.name}: done in ${Math.round((Date.now() - started) / 1000)} s`);
    }
  }
  return state;
}

async function poll<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function startAndCheck(stage: Stage, state: StageState, bin: string): Promise<void> {
  const command = [...(stage.entrypoint ?? []), ...(stage.cmd ?? [])];
  if (command.length === 0) throw new Error('final stage has no ENTRYPOINT/CMD');
  const user = numericUser(stage.user);
  if (!user || user.uid === 0) throw new Error(`final stage must set a numeric non-root USER (got ${stage.user ?? 'none'})`);
  const appDir = inStage(state, '.');
  for (const dev of ['vitest', 'typescript', 'eslint']) if (existsSync(join(appDir, 'node_modules', dev))) throw new Error(`dev dependency ${dev} is in the image`);
  if (!existsSync(join(appDir, 'node_modules', '@energetic-ai', 'model-embeddings-en', 'dist'))) throw new Error('the embedded model is not in the image');
  if (!existsSync(join(appDir, 'dist', 'cli.js'))) throw new Error('dist/cli.js missing: the build stage output was not copied');

  const [otlpPort, httpPort] = await freePorts(2);
  // As `docker run -e`: loopback here instead of the image's 0.0.0.0, ports picked free.
  const env = { PATH: `${bin}:/usr/bin:/bin`, HOME: '/tmp', ...state.env, RAGWATCH_HOST: '127.0.0.1', RAGWATCH_OTLP_PORT: String(otlpPort), RAGWATCH_OTLP_GRPC_PORT: '0', RAGWATCH_HTTP_PORT: String(httpPort) };
  const asUser = process.getuid?.() === 0 ? { uid: user.uid, gid: user.gid } : {};
  log(`starting ${command.join(' ')} as ${process.getuid?.() === 0 ? `uid ${user.uid}` : 'the current user (not root: cannot switch)'}`);
  const child = spawn(join(bin, command[0]!), command.slice(1), { cwd: appDir, env, stdio: ['ignore', 'inherit', 'inherit'], ...asUser });
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  try {
    const http = `http://127.0.0.1:${httpPort}`;
    await poll('/readyz', async () => ((await fetch(`${http}/readyz`)).ok ? true : undefined), 60_000);
    const res = await fetch(`http://127.0.0.1:${otlpPort}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(openInferenceTrace(CLOCK_TOWER).body) });
    if (res.status !== 200) throw new Error(`POST /v1/traces answered ${res.status}`);
    await poll(
      'an embedded-judge score on /metrics',
      async () => {
        const text = await (await fetch(`${http}/metrics`)).text();
        return /^ragwatch_score_ratio_count\{[^}]*metric="response_self_distinctness"[^}]*judge="embedded"[^}]*\} [1-9]/m.test(text) ? true : undefined;
      },
      60_000,
    );
    log('scored a trace with the embedded judge');
    // The store is where `ragwatch start` keeps review labels, feedback and history: it must be writable as the image's user.
    await poll('the embedded store in the image\'s data directory', async () => (existsSync(join(appDir, 'data', 'ragwatch.sqlite')) ? true : undefined), 10_000);
    log('the embedded store is kept in data/');
  } finally {
    child.kill('SIGTERM');
  }
  const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('timeout'), 15_000))]);
  if (code !== 0) throw new Error(`SIGTERM: expected exit 0, got ${code}`);
  log('stopped cleanly on SIGTERM');
}

async function main(): Promise<void> {
  const stages = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  if (stages.length < 2) throw new Error('the Dockerfile must be multi-stage');
  const bin = baseImageBin();
  const cache = npmCache();
  const states = new Map<string, StageState>();
  for (const stage of stages) states.set(stage.name, runStage(stage, states, bin, cache));
  const last = stages[stages.length - 1]!;
  // The runtime stage is what a container runs: files owned by root, readable by the non-root user.
  spawnSync('chmod', ['-R', 'a+rX', states.get(last.name)!.root]);
  chmodSync(work, 0o755);
  chmodSync(join(work, 'stages'), 0o755);
  chmodSync(join(work, 'base'), 0o755);
  await startAndCheck(last, states.get(last.name)!, bin);
  log('OK');
}

main().then(
  () => {
    if (!keep) rmSync(work, { recursive: true, force: true });
  },
  (err: unknown) => {
    process.stderr.write(`[image-smoke] FAILED: ${err instanceof Error ? err.message : String(err)}\n(work dir kept: ${work})\n`);
    process.exitCode = 1;
  },
);
