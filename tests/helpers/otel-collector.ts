/**
 * A real OpenTelemetry Collector for tests: `otelcol-ragwatch`, built by scripts/collector/build.sh with
 * the Collector Builder from scripts/collector/builder-config.yaml (OTLP receiver, batch processor, OTLP
 * gRPC/HTTP and debug exporters, contrib loadbalancing and kafka exporters) and cached outside the clone,
 * keyed by the manifest's hash. `.ci/run` builds it (or reuses the cached one); locally run
 * `scripts/collector/build.sh` once (a cold build takes minutes).
 *
 * ```ts
 * const ok = haveCollector('collector-grpc');
 * describe.skipIf(!ok)('…', () => {
 *   it('…', async () => {
 *     const otelcol = await startCollector(`receivers: {otlp: {protocols: {grpc: {endpoint: "127.0.0.1:\${env:OTLP_GRPC_PORT}"}}}} …`);
 *     try { … otelcol.ports.otlpGrpc … } finally { await otelcol.stop(); }
 *   });
 * });
 * ```
 *
 * The config is YAML; the helper picks free ports and hands them to the Collector as the environment
 * variables `OTLP_GRPC_PORT` and `OTLP_HTTP_PORT` (read with its env provider, `${env:…}`), turns off
 * its own metrics endpoint (port 8888 would clash between Collectors), and resolves once the Collector
 * logged "Everything is ready" and its gRPC receiver port, when configured, accepts connections.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './process.ts';

const DIR = fileURLToPath(new URL('../../scripts/collector/', import.meta.url));

/** The Collector release of the manifest (core, builder and contrib). */
export const COLLECTOR_VERSION = /otlpreceiver (v[0-9.]+)/.exec(readFileSync(join(DIR, 'builder-config.yaml'), 'utf8'))![1]!;

/**
 * Where build.sh puts the binary for the committed manifest and go.sum (the same key:
 * sha256 of the two files, 16 hex digits). `RAGWATCH_OTELCOL` names another binary.
 */
export function collectorBinary(): string {
  if (process.env.RAGWATCH_OTELCOL) return process.env.RAGWATCH_OTELCOL;
  const key = createHash('sha256').update(readFileSync(join(DIR, 'builder-config.yaml'))).update(readFileSync(join(DIR, 'go.sum'))).digest('hex').slice(0, 16);
  const root = process.env.RAGWATCH_CACHE_DIR ?? join(homedir(), '.cache', 'ragwatch');
  return join(root, 'collector', key, 'otelcol-ragwatch');
}

/**
 * True when the built Collector is there and runs. Missing locally: a loud warning and false (the
 * caller skips). Missing under CI=true: throws, so the suite fails instead of silently skipping.
 */
export function haveCollector(suite: string): boolean {
  const binary = collectorBinary();
  try {
    accessSync(binary, constants.X_OK);
    const r = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 });
    if (r.status === 0) return true;
  } catch {
    // missing: reported below
  }
  const msg = `${suite}: the OpenTelemetry Collector ${COLLECTOR_VERSION} is not built at ${binary} (run scripts/collector/build.sh; .ci/run does)`;
  if (process.env.CI === 'true') throw new Error(`${msg} — required under CI=true`);
  console.warn(`\n!!!!! SKIPPING ${msg} !!!!!\n`);
  return false;
}

/** A running Collector. */
export interface RunningCollector {
  /** The ports handed to the config as `${env:OTLP_GRPC_PORT}` and `${env:OTLP_HTTP_PORT}`. */
  ports: { otlpGrpc: number; otlpHttp: number };
  pid: number;
  /** Its log output so far (JSON-free console lines, stderr). */
  output(): string;
  /** SIGTERM (the Collector drains its pipelines), SIGKILL after `graceMs`. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

/** Options of {@link startCollector}. */
export interface StartCollectorOptions {
  /** More environment for the Collector (read in the config as `${env:NAME}`). */
  env?: Record<string, string>;
  /** How long to wait for readiness, milliseconds. Default 60000. */
  readyTimeoutMs?: number;
}

/** What every test Collector gets on top of its config: no self-metrics endpoint, info logs. */
const TELEMETRY = 'service:\n  telemetry:\n    metrics:\n      level: none\n    logs:\n      level: info\n';

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts the Collector with `configYaml` (merged with {@link TELEMETRY}) and resolves once it is ready. */
export async function startCollector(configYaml: string, options: StartCollectorOptions = {}): Promise<RunningCollector> {
  const dir = mkdtempSync(join(tmpdir(), 'otelcol-'));
  writeFileSync(join(dir, 'config.yaml'), configYaml);
  writeFileSync(join(dir, 'telemetry.yaml'), TELEMETRY);
  const ports = { otlpGrpc: await freePort(), otlpHttp: await freePort() };
  const child = spawn(collectorBinary(), ['--config', `file:${join(dir, 'config.yaml')}`, '--config', `file:${join(dir, 'telemetry.yaml')}`], {
    env: { PATH: process.env.PATH ?? '', HOME: dir, OTLP_GRPC_PORT: String(ports.otlpGrpc), OTLP_HTTP_PORT: String(ports.otlpHttp), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const append = (d: Buffer) => (out = (out + d.toString()).slice(-500_000));
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  let stopping: Promise<void> | undefined;
  const stop = (graceMs = 10_000) =>
    (stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    })());
  let exitedEarly: string | undefined;
  void exited.then((code) => (exitedEarly = String(code)));
  const usesGrpcPort = configYaml.includes('${env:OTLP_GRPC_PORT}');
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    const why = exitedEarly !== undefined ? `the Collector exited (${exitedEarly}) before it was ready` : Date.now() > deadline ? 'the Collector was not ready in time' : undefined;
    if (why) {
      await stop(1_000);
      throw new Error(`${why}\n--- Collector output ---\n${out.slice(-4000)}`);
    }
    if (out.includes('Everything is ready') && (!usesGrpcPort || (await canConnect(ports.otlpGrpc)))) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { ports, pid: child.pid!, output: () => out, stop };
}
