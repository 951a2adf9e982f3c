/**
 * Python RAG services for the integration layer (tests/python/): the virtual environments made by
 * `tests/python/setup.sh` (outside the clone, one per instrumentation set, keyed by the hash of its
 * lock), the scenario the services answer, a fake-LLM responder for it, and a runner that starts a
 * service under its instrumentation and returns what the service reports it did.
 *
 * Every use starts a Python interpreter: files using it are integration tests
 * (tests/architecture/test-layers.test.ts).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { FakeReply, FakeRequest, Responder } from '../fakes/openai-server.ts';
import { ROOT } from './process.ts';

/** tests/python in the repository. */
export const PYTHON_DIR = join(ROOT, 'tests/python');
const SERVICES = join(PYTHON_DIR, 'services');

/** One document of the scenario's corpus. */
export interface ScenarioDocument {
  id: string;
  text: string;
}
/** One question and the answer the fake LLM gives to it. */
export interface ScenarioTurn {
  question: string;
  answer: string;
}
/** tests/python/services/scenario.json: what every service answers. */
export interface Scenario {
  documents: ScenarioDocument[];
  topK: number;
  model: string;
  turns: { answer: ScenarioTurn; stream: ScenarioTurn; chat: ScenarioTurn[]; search: { question: string } };
}
export const SCENARIO: Scenario = JSON.parse(readFileSync(join(SERVICES, 'scenario.json'), 'utf8')) as Scenario;

/** The folder holding the environments (`RAGWATCH_PYTHON_CACHE`, default ~/.cache/ragwatch/python). */
export function pythonCacheDir(): string {
  return process.env.RAGWATCH_PYTHON_CACHE ?? join(homedir(), '.cache/ragwatch/python');
}

/** The environment `name` for its current lock (as setup.sh names it), whether made or not. */
export function pythonEnvPath(name: string): string {
  const lock = readFileSync(join(PYTHON_DIR, 'envs', name, 'requirements.txt'));
  return join(pythonCacheDir(), 'venvs', `${name}-${createHash('sha256').update(lock).digest('hex').slice(0, 16)}`);
}

/** The environment `name` if setup.sh made it for the current lock, else undefined. */
export function pythonEnv(name: string): string | undefined {
  const path = pythonEnvPath(name);
  return existsSync(join(path, '.ragwatch-ready')) ? path : undefined;
}

/**
 * True when the environments are there. Missing locally: a loud warning and false (the caller
 * skips). Missing under CI=true: throws, so the suite fails instead of silently skipping.
 */
export function havePython(suite: string, envs: readonly string[]): boolean {
  const missing = envs.filter((e) => pythonEnv(e) === undefined);
  if (missing.length === 0) return true;
  const msg = `${suite}: the Python environment(s) ${missing.join(', ')} are not made for the current lock — run tests/python/setup.sh ${missing.join(' ')}`;
  if (process.env.CI === 'true') throw new Error(`${msg}; required under CI=true`);
  console.warn(`\n!!!!! SKIPPING ${msg} !!!!!\n`);
  return false;
}

/** What a service printed for one answered turn (`RAGWATCH-REPORT {json}`). */
export interface ServiceReport {
  scenario: 'answer' | 'stream' | 'chat' | 'search';
  /** 1-based turn of the scenario (chat: 1, 2). */
  turn: number;
  question: string;
  answer: string;
  /** The documents its retriever returned, in order. */
  sources: Array<{ id?: string; text: string }>;
  stream: boolean;
}

/** Options of {@link runPythonService}. */
export interface PythonServiceOptions {
  /** The environment (tests/python/envs/NAME). */
  env: string;
  /** The service script in tests/python/services (e.g. `rag_langchain.py`). */
  service: string;
  /** Scenarios to answer. Default answer, stream, chat (`search`: the retriever alone, which must give no triplet). */
  scenarios?: ReadonlyArray<'answer' | 'stream' | 'chat' | 'search'>;
  /** The instrumentation set the service runs under (RAG_INSTRUMENTATION: how it marks a conversation). */
  instrumentation: string;
  /**
   * Run under `opentelemetry-instrument` (zero-code instrumentation and its OTLP exporters). Default:
   * true, except for traceloop and langfuse, whose SDKs set up their own exporter in code.
   */
  instrument?: boolean;
  /** `OTEL_SERVICE_NAME`. */
  serviceName: string;
  /**
   * Where the spans go: an OTLP base URL (`http://127.0.0.1:4317` for gRPC, `…:4318` for HTTP) and the
   * protocol, given to each library the way its users give it (see {@link exportEnv}).
   */
  otlp?: { endpoint: string; protocol: 'grpc' | 'http/protobuf' };
  /** The fake LLM's base URL with `/v1` (`OPENAI_BASE_URL`). */
  openaiBaseUrl: string;
  /** The conversation id of the chat scenario (RAG_SESSION_ID). Default `conversation-1`. */
  sessionId?: string;
  /** More environment variables (they win over the defaults). */
  extraEnv?: Record<string, string>;
  /** Default 120 s. */
  timeoutMs?: number;
}

/** A finished service run. */
export interface PythonRun {
  code: number | null;
  stdout: string;
  stderr: string;
  reports: ServiceReport[];
}

/**
 * Environment of a service: nothing of the test process's own OTel settings, the libraries'
 * phone-home telemetry off (the machines reach no such host), metrics not exported (ragwatch
 * receives traces and logs).
 */
function serviceEnv(o: PythonServiceOptions): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? homedir(),
    LANG: 'C.UTF-8',
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONUNBUFFERED: '1',
    OPENAI_BASE_URL: o.openaiBaseUrl,
    OPENAI_API_KEY: 'sk-test',
    RAG_INSTRUMENTATION: o.instrumentation,
    RAG_SESSION_ID: o.sessionId ?? 'conversation-1',
    OTEL_SERVICE_NAME: o.serviceName,
    OTEL_METRICS_EXPORTER: 'none',
    TRACELOOP_TELEMETRY: 'false',
    HAYSTACK_TELEMETRY_ENABLED: 'False',
    DO_NOT_TRACK: '1',
  };
  return { ...env, ...(o.otlp ? exportEnv(o.instrumentation, o.otlp) : {}), ...o.extraEnv };
}

/**
 * The settings that send a library's spans to an OTLP endpoint, as its users set them:
 * `opentelemetry-instrument` reads `OTEL_EXPORTER_OTLP_*`; Traceloop.init reads `TRACELOOP_BASE_URL`
 * (`http://` → OTLP/HTTP, `grpc://` → OTLP/gRPC); Langfuse exports OTLP/HTTP to `LANGFUSE_BASE_URL` +
 * `LANGFUSE_OTEL_TRACES_EXPORT_PATH` with Basic auth from its keys, or hands its spans to an OTLP/gRPC
 * exporter the service passes it (`Langfuse(span_exporter=…)`, reading `OTEL_EXPORTER_OTLP_*`).
 */
export function exportEnv(instrumentation: string, otlp: { endpoint: string; protocol: 'grpc' | 'http/protobuf' }): Record<string, string> {
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: otlp.protocol };
  // Traceloop also exports metrics to the same place unless told not to (ragwatch takes traces and logs).
  if (instrumentation === 'traceloop') return { TRACELOOP_BASE_URL: otlp.protocol === 'grpc' ? otlp.endpoint.replace(/^https?:/, 'grpc:') : otlp.endpoint, TRACELOOP_METRICS_ENABLED: 'false' };
  if (instrumentation === 'langfuse') {
    const keys = { LANGFUSE_PUBLIC_KEY: 'pk-lf-test', LANGFUSE_SECRET_KEY: 'sk-lf-test' };
    return otlp.protocol === 'grpc' ? { ...keys, ...otel } : { ...keys, LANGFUSE_BASE_URL: otlp.endpoint, LANGFUSE_OTEL_TRACES_EXPORT_PATH: 'v1/traces' };
  }
  return otel;
}

/** Runs a service to the end: it answers its scenarios, its SDK flushes at exit. Rejects on a timeout. */
export function runPythonService(o: PythonServiceOptions): Promise<PythonRun> {
  const venv = pythonEnv(o.env);
  if (!venv) throw new Error(`python env ${o.env} is not made: run tests/python/setup.sh ${o.env}`);
  const script = join(SERVICES, o.service);
  const args = [join(venv, 'bin/python'), script, (o.scenarios ?? ['answer', 'stream', 'chat']).join(',')];
  const instrument = o.instrument ?? !['traceloop', 'langfuse'].includes(o.instrumentation);
  const [cmd, ...rest] = instrument ? [join(venv, 'bin/opentelemetry-instrument'), ...args] : args;
  const child = spawn(cmd!, rest, { cwd: SERVICES, env: serviceEnv(o), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timeoutMs = o.timeoutMs ?? 120_000;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${o.service} (${o.env}) did not finish within ${timeoutMs} ms\n${stderr.slice(-3000)}`));
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      const reports = stdout
        .split('\n')
        .filter((l) => l.startsWith('RAGWATCH-REPORT '))
        .map((l) => JSON.parse(l.slice('RAGWATCH-REPORT '.length)) as ServiceReport);
      resolve({ code, stdout, stderr, reports });
    });
  });
}

/** Options of {@link scenarioResponder}. */
export interface ScenarioResponderOptions {
  /** Delay before the first streamed chunk, ms (the TTFT the libraries should see). Default 150. */
  firstChunkDelayMs?: number;
  /** Delay between streamed chunks, ms. Default 20. */
  chunkDelayMs?: number;
  /** Streamed chunks per answer. Default 6. */
  chunks?: number;
}

function lastUserText(req: FakeRequest): string {
  const messages = req.body?.messages;
  if (!Array.isArray(messages)) return typeof req.body?.prompt === 'string' ? req.body.prompt : '';
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: string; content?: unknown };
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) return m.content.map((p: { text?: string }) => p.text ?? '').join('');
  }
  return '';
}

/** The scenario turn whose question the request's last user message holds, if any. */
export function turnOf(req: FakeRequest): ScenarioTurn | undefined {
  const text = lastUserText(req);
  const turns = [SCENARIO.turns.answer, SCENARIO.turns.stream, ...SCENARIO.turns.chat];
  return turns.find((t) => text.includes(t.question));
}

/**
 * Answers each scenario question with its scripted answer (streamed in `chunks` pieces when asked
 * to stream), output tokens = words + 1; anything else gets a 400 naming the request, so an
 * unexpected LLM call fails the service loudly instead of producing a triplet nobody expected.
 */
export function scenarioResponder(options: ScenarioResponderOptions = {}): Responder {
  return (req): FakeReply => {
    const turn = turnOf(req);
    if (!turn) return { status: 400, body: { error: { message: `fake LLM: no scenario question in ${lastUserText(req).slice(0, 200)}` } } };
    return {
      content: turn.answer,
      model: SCENARIO.model,
      promptTokens: 60,
      completionTokens: turn.answer.split(/\s+/).length + 1,
      firstChunkDelayMs: options.firstChunkDelayMs ?? 150,
      chunkDelayMs: options.chunkDelayMs ?? 20,
      chunks: options.chunks ?? 6,
    };
  };
}
