/**
 * Loads the configuration: YAML file (optional) → environment overrides → zod validation.
 * The only module that reads the environment and config files (code-style C7).
 * @module
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import type { z } from 'zod';
import { ConfigError } from '../errors.ts';
import { configSchema, type RagwatchConfig } from './schema.ts';

type EnvKind = 'string' | 'number' | 'list' | 'boolean' | 'headers';

/** Environment variable → config key. Documented in docs/configuration.md. */
export const ENV_OVERRIDES: ReadonlyArray<{ env: string; path: string; kind: EnvKind }> = [
  { env: 'RAGWATCH_HOST', path: 'server.host', kind: 'string' },
  { env: 'RAGWATCH_OTLP_PORT', path: 'server.otlpPort', kind: 'number' },
  { env: 'RAGWATCH_OTLP_GRPC_PORT', path: 'server.otlpGrpcPort', kind: 'number' },
  { env: 'RAGWATCH_HTTP_PORT', path: 'server.httpPort', kind: 'number' },
  { env: 'RAGWATCH_BEARER_TOKEN', path: 'server.bearerToken', kind: 'string' },
  { env: 'RAGWATCH_API_TOKEN', path: 'server.apiToken', kind: 'string' },
  { env: 'RAGWATCH_UI_PORT', path: 'server.uiPort', kind: 'number' },
  { env: 'RAGWATCH_TRANSPORT', path: 'transport.kind', kind: 'string' },
  { env: 'RAGWATCH_ENDPOINT', path: 'transport.http.endpoint', kind: 'string' },
  { env: 'RAGWATCH_ENDPOINT_TOKEN', path: 'transport.http.bearerToken', kind: 'string' },
  { env: 'RAGWATCH_KAFKA_BROKERS', path: 'transport.kafka.brokers', kind: 'list' },
  { env: 'RAGWATCH_KAFKA_SASL_USERNAME', path: 'transport.kafka.sasl.username', kind: 'string' },
  { env: 'RAGWATCH_KAFKA_SASL_PASSWORD', path: 'transport.kafka.sasl.password', kind: 'string' },
  // ingest.kafka's own cluster (ingest.kafka.brokers): its SASL credentials from a Secret too (the mechanism stays in the file).
  { env: 'RAGWATCH_INGEST_KAFKA_SASL_USERNAME', path: 'ingest.kafka.sasl.username', kind: 'string' },
  { env: 'RAGWATCH_INGEST_KAFKA_SASL_PASSWORD', path: 'ingest.kafka.sasl.password', kind: 'string' },
  { env: 'RAGWATCH_SAMPLE_RATE', path: 'sampling.rate', kind: 'number' },
  { env: 'RAGWATCH_JUDGE', path: 'judge.kind', kind: 'string' },
  { env: 'RAGWATCH_JUDGE_MODEL', path: 'judge.model', kind: 'string' },
  { env: 'RAGWATCH_LOCAL_MODEL', path: 'judge.local.model', kind: 'string' },
  { env: 'RAGWATCH_MODEL_CACHE', path: 'judge.local.cacheDir', kind: 'string' },
  { env: 'OPENAI_API_KEY', path: 'judge.apiKey', kind: 'string' },
  { env: 'OPENAI_BASE_URL', path: 'judge.baseUrl', kind: 'string' },
  { env: 'RAGWATCH_DATA_DIR', path: 'store.dataDir', kind: 'string' },
  { env: 'RAGWATCH_CALIBRATION_FILE', path: 'calibration.file', kind: 'string' },
  { env: 'RAGWATCH_PROBE_SUITES', path: 'probes.suites', kind: 'list' },
  { env: 'RAGWATCH_EXAM_FILES', path: 'exams.files', kind: 'list' },
  { env: 'RAGWATCH_LOG_LEVEL', path: 'log.level', kind: 'string' },
  { env: 'RAGWATCH_LOG_FORMAT', path: 'log.format', kind: 'string' },
  { env: 'RAGWATCH_REDACTION_HMAC_KEY', path: 'redaction.hmacKey', kind: 'string' },
  // The OTel exporters' logs variables configure the evaluation export's OTLP writer (only the LOGS_ ones:
  // the generic OTEL_EXPORTER_OTLP_ENDPOINT often points at ragwatch itself, which must not export to itself).
  { env: 'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT', path: 'evaluationExport.otlp.endpoint', kind: 'string' },
  { env: 'OTEL_EXPORTER_OTLP_LOGS_PROTOCOL', path: 'evaluationExport.otlp.protocol', kind: 'string' },
  { env: 'OTEL_EXPORTER_OTLP_LOGS_HEADERS', path: 'evaluationExport.otlp.headers', kind: 'headers' },
  { env: 'OTEL_EXPORTER_OTLP_LOGS_TIMEOUT', path: 'evaluationExport.otlp.timeoutMs', kind: 'number' },
  { env: 'OTEL_EXPORTER_OTLP_LOGS_COMPRESSION', path: 'evaluationExport.otlp.compression', kind: 'string' },
  { env: 'OTEL_EXPORTER_OTLP_LOGS_INSECURE', path: 'evaluationExport.otlp.insecure', kind: 'boolean' },
  { env: 'LANGFUSE_PUBLIC_KEY', path: 'evaluationExport.langfuse.publicKey', kind: 'string' },
  { env: 'LANGFUSE_SECRET_KEY', path: 'evaluationExport.langfuse.secretKey', kind: 'string' },
  // The name Phoenix's own clients read.
  { env: 'PHOENIX_API_KEY', path: 'evaluationExport.phoenix.apiKey', kind: 'string' },
];

/** Options of {@link loadConfig}; everything optional. */
export interface LoadConfigOptions {
  /** Environment to read; default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Config file path; default `RAGWATCH_CONFIG` from the environment, else none (embedded defaults). */
  file?: string;
  /** Values that win over file and environment (e.g. CLI flags), as a nested object. */
  overrides?: Record<string, unknown>;
  /**
   * The caller connects to no Kafka cluster and exports nothing: it only derives artifacts or reports
   * from the config (`ragwatch rules`, `evaluators`, offline analysis). The credentials only a connection
   * uses ({@link CONNECTION_CREDENTIALS}: SASL username and password, Langfuse keys) may then be absent,
   * and the Kafka TLS files are not read; every other key is validated as for a role. Never set it for a
   * role that connects: its config carries a placeholder where a credential was absent. Default false.
   */
  offline?: boolean;
}

/**
 * Credentials a connection needs, which an offline load lets be absent: `[section, key, env, when]` —
 * `key` of the object at `section`, required once that object sets `when`.
 */
export const CONNECTION_CREDENTIALS: ReadonlyArray<readonly [section: string, key: string, env: string, when: string]> = [
  ['transport.kafka.sasl', 'username', 'RAGWATCH_KAFKA_SASL_USERNAME', 'mechanism'],
  ['transport.kafka.sasl', 'password', 'RAGWATCH_KAFKA_SASL_PASSWORD', 'mechanism'],
  ['ingest.kafka.sasl', 'username', 'RAGWATCH_INGEST_KAFKA_SASL_USERNAME', 'mechanism'],
  ['ingest.kafka.sasl', 'password', 'RAGWATCH_INGEST_KAFKA_SASL_PASSWORD', 'mechanism'],
  ['evaluationExport.langfuse', 'publicKey', 'LANGFUSE_PUBLIC_KEY', 'baseUrl'],
  ['evaluationExport.langfuse', 'secretKey', 'LANGFUSE_SECRET_KEY', 'baseUrl'],
];
/** TLS file keys of the Kafka connections, read by the loader (PEM files inside the pod); an offline load skips them. */
const KAFKA_TLS_FILES: ReadonlyArray<readonly [section: string, keys: readonly string[]]> = [
  ['transport.kafka.tls', ['caFile', 'certFile', 'keyFile']],
  ['ingest.kafka.tls', ['caFile', 'certFile', 'keyFile']],
];

function objectAt(root: Record<string, unknown>, path: string): Record<string, unknown> | undefined {
  let node: unknown = root;
  for (const key of path.split('.')) node = isPlainObject(node) ? node[key] : undefined;
  return isPlainObject(node) ? node : undefined;
}

/**
 * An offline load's input: an absent connection credential gets a placeholder naming its variable (so
 * the rest of its section is still validated: mechanism, PLAIN without TLS…), TLS file paths are dropped.
 */
function withoutConnectionSecrets(raw: Record<string, unknown>): Record<string, unknown> {
  const out = structuredClone(raw);
  for (const [section, key, env, when] of CONNECTION_CREDENTIALS) {
    const node = objectAt(out, section);
    if (node?.[when] !== undefined && (node[key] === undefined || node[key] === '')) node[key] = `(offline load: ${env} not read)`;
  }
  for (const [section, keys] of KAFKA_TLS_FILES) {
    const node = objectAt(out, section);
    if (node) for (const key of keys) delete node[key];
  }
  return out;
}

/** Where a config value came from, to name it in error messages. */
type Origins = Map<string, string>;

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    out[k] = isPlainObject(v) && isPlainObject(out[k]) ? deepMerge(out[k], v) : v;
  }
  return out;
}

/** `key1=value1,key2=value2` (W3C baggage-like, values percent-decoded), as OTEL_EXPORTER_OTLP_*_HEADERS; an unreadable pair keeps the raw string for the error. */
function parseHeaders(raw: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const pair of raw.split(',')) {
    if (pair.trim() === '') continue;
    const eq = pair.indexOf('=');
    if (eq <= 0) return raw;
    try {
      out[decodeURIComponent(pair.slice(0, eq).trim())] = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      return raw;
    }
  }
  return out;
}

function convertEnv(raw: string, kind: EnvKind): unknown {
  if (kind === 'list') return raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (kind === 'headers') return parseHeaders(raw);
  if (kind === 'boolean') return /^(true|1)$/i.test(raw.trim()) ? true : /^(false|0)$/i.test(raw.trim()) ? false : raw;
  if (kind === 'number') {
    const n = Number(raw);
    // Keep the raw string when it is not a number so the error shows what was given.
    return raw.trim() !== '' && Number.isFinite(n) ? n : raw;
  }
  return raw;
}

// yaml is loaded on first use: the in-process plugin reads its config from env and never pays for a YAML parser (with pino kept out too, the forwarding plugin went from +28 to +20 MB of host RSS).
const requireHere = createRequire(import.meta.url);
function parseYaml(text: string): unknown {
  return (requireHere('yaml') as typeof Yaml).parse(text);
}

function readFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read config file ${file} (RAGWATCH_CONFIG): ${(err as Error).message}`, ['RAGWATCH_CONFIG'], 'RAGWATCH_CONFIG_UNREADABLE');
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`config file ${file} is not valid YAML: ${(err as Error).message}`, ['RAGWATCH_CONFIG']);
  }
  if (doc === null || doc === undefined) return {};
  if (!isPlainObject(doc)) throw new ConfigError(`config file ${file} must hold a mapping at the top level`, ['RAGWATCH_CONFIG']);
  // Probe suite and calibration paths in a file are relative to that file (as a suite's own paths are relative to the suite).
  const probes = doc.probes;
  if (isPlainObject(probes) && Array.isArray(probes.suites)) probes.suites = probes.suites.map((p: unknown) => (typeof p === 'string' ? resolve(dirname(resolve(file)), p) : p));
  const calibration = doc.calibration;
  if (isPlainObject(calibration) && typeof calibration.file === 'string') calibration.file = resolve(dirname(resolve(file)), calibration.file);
  return doc;
}

/** Most evaluator files read from one directory, and the largest one, bytes. */
const MAX_EVALUATOR_FILES = 64;
const MAX_EVALUATOR_FILE_BYTES = 256 * 1024;

/**
 * `evaluators: PATH`: the evaluators of one YAML file, or of every `*.yaml` / `*.yml` file of a directory
 * in file-name order (each file one evaluator or a list of them); each entry's file is remembered to name
 * it in errors.
 */
function readEvaluatorFiles(at: string, origins: Origins): unknown[] {
  let paths: string[];
  try {
    paths = statSync(at).isDirectory() ? readdirSync(at).filter((n) => /\.ya?ml$/i.test(n)).sort().map((n) => join(at, n)) : [at];
  } catch (err) {
    throw new ConfigError(`config key "evaluators": cannot read ${at}: ${(err as Error).message}`, ['evaluators']);
  }
  if (paths.length > MAX_EVALUATOR_FILES) throw new ConfigError(`config key "evaluators": ${paths.length} files in ${at}, at most ${MAX_EVALUATOR_FILES}`, ['evaluators']);
  const out: unknown[] = [];
  for (const path of paths) {
    let doc: unknown;
    try {
      if (statSync(path).size > MAX_EVALUATOR_FILE_BYTES) throw new Error(`larger than ${MAX_EVALUATOR_FILE_BYTES} bytes`);
      doc = parseYaml(readFileSync(path, 'utf8'));
    } catch (err) {
      throw new ConfigError(`config key "evaluators": evaluator file ${path}: ${(err as Error).message}`, ['evaluators']);
    }
    for (const entry of Array.isArray(doc) ? doc : doc === null || doc === undefined ? [] : [doc]) {
      origins.set(`evaluators.${out.length}`, `file ${path}`);
      out.push(entry);
    }
  }
  return out;
}

/** The origin of the longest prefix of `path` that has one. */
function originOf(path: readonly string[], origins: Origins): string | undefined {
  for (let k = path.length; k > 0; k--) {
    const origin = origins.get(path.slice(0, k).join('.'));
    if (origin) return origin;
  }
  return path.length === 0 ? origins.get('') : undefined;
}

/** Keys that were replaced, with what replaces them (named instead of "unknown key"). */
const REPLACED_KEYS: Readonly<Record<string, string>> = {
  'sampling.feedback':
    'replaced by the feedback section: negativeFeedback rules read feedback.spans.thumbsAttributes and ratingAttributes against feedback.negativeValues and feedback.badRatingAtMost (docs/sampling.md)',
};

function describeIssue(issue: z.core.$ZodIssue, origins: Origins): { key: string; line: string } {
  const path = issue.path.map(String);
  const keys = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...path, k].join('.')) : [path.join('.')];
  const key = keys.join(', ') || '(top level)';
  const origin = originOf(path, origins);
  const where = origin ? ` (from ${origin})` : '';
  let what = issue.message;
  if (issue.code === 'unrecognized_keys') what = keys.map((k) => REPLACED_KEYS[k]).find((r) => r !== undefined) ?? 'unknown key; see config/ragwatch.yaml for the allowed keys';
  return { key, line: `config key "${key}"${where}: ${what}` };
}

/**
 * Loads and validates the configuration.
 * @throws ConfigError naming every offending key (and the env variable it came from).
 */
export function loadConfig(options: LoadConfigOptions = {}): RagwatchConfig {
  const env = options.env ?? process.env;
  const origins: Origins = new Map();
  const file = options.file ?? env.RAGWATCH_CONFIG;
  let raw: Record<string, unknown> = file ? readFile(file) : {};
  if (file) origins.set('', `file ${file}`);

  const fromEnv: Record<string, unknown> = {};
  for (const { env: name, path, kind } of ENV_OVERRIDES) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    setPath(fromEnv, path, convertEnv(value, kind));
    origins.set(path, `env ${name}=${name.includes('KEY') || name.includes('TOKEN') || name.includes('PASSWORD') || name.includes('HEADERS') ? '***' : JSON.stringify(value)}`);
  }
  raw = deepMerge(raw, fromEnv);
  if (options.overrides) raw = deepMerge(raw, options.overrides);
  // A file or directory of evaluators: relative to the config file when the path came from it.
  if (typeof raw.evaluators === 'string') raw.evaluators = readEvaluatorFiles(resolve(file && !options.overrides?.evaluators ? dirname(resolve(file)) : '.', raw.evaluators), origins);
  if (options.offline) raw = withoutConnectionSecrets(raw);

  const result = configSchema.safeParse(raw);
  if (!result.success) {
    const described = result.error.issues.map((i) => describeIssue(i, origins));
    const message = ['invalid ragwatch configuration:', ...described.map((d) => `  - ${d.line}`)].join('\n');
    throw new ConfigError(message, described.map((d) => d.key));
  }
  return withEvaluators(result.data);
}

/**
 * Every evaluator's alert settings become its `alerts.metrics` entry, so each consumer of `alerts.metrics`
 * treats it as any metric; it is a label concept of its own (`calibration.labelMetrics`) unless a concept
 * already names it, with its review question when it has one.
 */
function withEvaluators(config: RagwatchConfig): RagwatchConfig {
  const { labelMetrics, questions } = config.calibration;
  for (const e of config.evaluators) {
    config.alerts.metrics[e.name] = e.alerts;
    if (!Object.values(labelMetrics).some((metrics) => metrics.includes(e.name))) labelMetrics[e.name] ??= [e.name];
    if (e.question !== undefined) questions[e.name] ??= e.question;
  }
  return config;
}

/** The configuration with every default and no overrides (what `config/ragwatch.yaml` documents). */
export function defaultConfig(): RagwatchConfig {
  return configSchema.parse({});
}
