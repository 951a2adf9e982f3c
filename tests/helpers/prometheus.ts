/**
 * Test helpers for the real Prometheus toolchain (Debian `prometheus` 2.42, `prometheus-alertmanager`
 * 0.25, `chromium`): binary checks (skip loudly locally, fail under CI=true), promtool, and loopback
 * Prometheus / Alertmanager processes that are always killed in `afterAll`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort, waitFor } from './process.ts';

/** Absolute path of `name` on PATH, or undefined. */
export function which(name: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  const path = r.stdout.trim();
  return r.status === 0 && path ? path : undefined;
}

/**
 * True when every binary exists. Missing locally: a loud warning and false (the caller skips).
 * Missing under CI=true: throws, so the suite fails instead of silently skipping.
 */
export function haveBinaries(suite: string, ...names: string[]): boolean {
  const missing = names.filter((n) => !which(n));
  if (missing.length === 0) return true;
  const msg = `${suite}: missing system binaries ${missing.join(', ')} (apt-get install -y prometheus prometheus-alertmanager chromium)`;
  if (process.env.CI === 'true') throw new Error(`${msg} — required under CI=true`);
  console.warn(`\n!!!!! SKIPPING ${msg} !!!!!\n`);
  return false;
}

/** Result of one promtool invocation. */
export interface ToolResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `promtool args…` (optionally with stdin). */
export function promtool(args: string[], input?: string): ToolResult {
  const r = spawnSync('promtool', args, { encoding: 'utf8', input, timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A scratch directory removed by `cleanup()`. */
export function scratchDir(prefix: string): { dir: string; write: (name: string, content: unknown) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    write: (name, content) => {
      const path = join(dir, name);
      writeFileSync(path, typeof content === 'string' ? content : stringify(content, { lineWidth: 0 }));
      return path;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A loopback child process (Prometheus, Alertmanager) with its captured output. */
export interface LoopbackProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  /** SIGTERM, then SIGKILL after 3 s. Idempotent. */
  stop: () => Promise<void>;
}

function spawnLoopback(cmd: string, args: string[], url: string): LoopbackProcess {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopping: Promise<void> | undefined;
  return {
    url,
    child,
    output: () => out,
    stop: () =>
      (stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
        await exited;
        clearTimeout(timer);
      })()),
  };
}

/** Options of {@link startPrometheus}. */
export interface PrometheusOptions {
  /** `host:port` targets scraped as job `ragwatch`. */
  targets: string[];
  /** Rule files to load. */
  ruleFiles?: string[];
  /** Alertmanager `host:port`. */
  alertmanager?: string;
  /** Scrape and evaluation interval. Default `1s`. */
  interval?: string;
  /** Extra command-line flags, e.g. `--enable-feature=exemplar-storage`. */
  extraArgs?: string[];
  dir: string;
}

/** Starts Prometheus on a free loopback port and waits for `/-/ready`. */
export async function startPrometheus(options: PrometheusOptions): Promise<LoopbackProcess> {
  const port = await freePort();
  const interval = options.interval ?? '1s';
  const config: Record<string, unknown> = {
    global: { scrape_interval: interval, evaluation_interval: interval },
    rule_files: options.ruleFiles ?? [],
    scrape_configs: [{ job_name: 'ragwatch', static_configs: [{ targets: options.targets }] }],
  };
  if (options.alertmanager) config.alerting = { alertmanagers: [{ static_configs: [{ targets: [options.alertmanager] }] }] };
  const file = join(options.dir, 'prometheus.yml');
  writeFileSync(file, stringify(config));
  const url = `http://127.0.0.1:${port}`;
  const proc = spawnLoopback(
    'prometheus',
    [`--config.file=${file}`, `--storage.tsdb.path=${join(options.dir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn', ...(options.extraArgs ?? [])],
    url,
  );
  await waitFor(async () => (await fetch(`${url}/-/ready`)).ok, 20_000, 200).catch(async (err: unknown) => {
    await proc.stop();
    throw new Error(`prometheus did not become ready: ${String(err)}\n${proc.output()}`);
  });
  return proc;
}

/** Starts Alertmanager on a free loopback port routing everything to `webhookUrl`; waits for `/-/ready`. */
export async function startAlertmanager(dir: string, webhookUrl: string): Promise<LoopbackProcess> {
  const port = await freePort();
  const file = join(dir, 'alertmanager.yml');
  writeFileSync(
    file,
    stringify({
      route: { receiver: 'test', group_by: ['alertname', 'service'], group_wait: '1s', group_interval: '1s', repeat_interval: '1h' },
      receivers: [{ name: 'test', webhook_configs: [{ url: webhookUrl, send_resolved: true }] }],
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const proc = spawnLoopback(
    'prometheus-alertmanager',
    [`--config.file=${file}`, `--storage.path=${join(dir, 'am')}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address=', '--log.level=warn'],
    url,
  );
  await waitFor(async () => (await fetch(`${url}/-/ready`)).ok, 20_000, 200).catch(async (err: unknown) => {
    await proc.stop();
    throw new Error(`alertmanager did not become ready: ${String(err)}\n${proc.output()}`);
  });
  return proc;
}

/** One instant-vector sample from the Prometheus HTTP API. */
export interface PromSample {
  metric: Record<string, string>;
  value: [number, string];
}

/** Runs an instant query; throws on an API error. */
export async function promQuery(url: string, query: string): Promise<PromSample[]> {
  const res = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query })}`);
  const body = (await res.json()) as { status: string; error?: string; data?: { resultType: string; result: PromSample[] } };
  if (body.status !== 'success') throw new Error(`query failed: ${query}: ${body.error ?? res.status}`);
  return body.data!.result;
}

/** An alert as `/api/v1/alerts` lists it. */
export interface PromAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing';
  value: string;
}

/** Alerts currently pending or firing in Prometheus. */
export async function promAlerts(url: string): Promise<PromAlert[]> {
  const body = (await (await fetch(`${url}/api/v1/alerts`)).json()) as { data: { alerts: PromAlert[] } };
  return body.data.alerts;
}
