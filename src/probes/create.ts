/**
 * Builds the scheduled prober from the configuration (`probes.suites`): loads and validates every
 * suite, generates its queries once (the facts are opened read-only and closed again), and wires the
 * series, alerts and the fallback judge. `ragwatch start` and `ragwatch prober` call this.
 * @module
 */
import { createEvaluators } from '../evaluators/create.ts';
import { piiCheckOf } from '../judges/pii.ts';
import type { Registry } from 'prom-client';
import { createRedactor } from '../capture/redaction/redact-outcome.ts';
import { SuiteError } from '../errors.ts';
import { loadProbeSuite } from './load-suite.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import type { Judge } from '../judges/types.ts';
import type { Logger } from '../log.ts';
import { alertNotifier } from '../metrics/score-metrics.ts';
import type { AlertNotifier } from '../metrics/notifier.ts';
import { ProbeAlerts } from './alerts.ts';
import { generateProbes, openFacts } from './generate.ts';
import { createJudgeMatch, needsJudgeMatch } from './judge-match.ts';
import { ProbeInstruments } from './metrics.ts';
import { Prober, type LoadedSuite } from './prober.ts';

/**
 * Loads every suite of `probes.suites`; a bad one throws a SuiteError naming the file and its key.
 * Suites with `match: judge` templates get the LLM match of `config.judge`.
 */
export async function loadSuites(files: readonly string[], config: RagwatchConfig): Promise<LoadedSuite[]> {
  const out: LoadedSuite[] = [];
  for (const [i, file] of files.entries()) {
    const { suite, facts } = loadProbeSuite(file);
    let db;
    try {
      db = await openFacts(facts);
    } catch (err) {
      throw err instanceof SuiteError ? new SuiteError(`probe suite ${file}: ${err.message}`, [`probes.suites.${i}`, ...err.keys]) : err;
    }
    try {
      out.push({ suite, queries: generateProbes(suite, db), ...(needsJudgeMatch(suite) ? { judgeMatch: createJudgeMatch(config, suite, file) } : {}) });
    } catch (err) {
      throw err instanceof SuiteError ? new SuiteError(`probe suite ${file}: ${err.message}`, [`probes.suites.${i}`, ...err.keys]) : err;
    } finally {
      db.close();
    }
  }
  const names = out.map((s) => s.suite.suite);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup !== undefined) throw new SuiteError(`config key "probes.suites": two suites are named "${dup}" (the suite name is a Prometheus label)`, ['probes.suites']);
  return out;
}

/** Options of {@link createProber}; `registry` is required. */
export interface CreateProberOptions {
  registry: Registry;
  logger?: Logger;
  /** Scores answers whose trace was not captured (the service is not instrumented). */
  judge?: Judge;
  /** Score records expected per probe trace (2 when a companion judge scores too). Default 1. */
  recordsPerTrace?: number;
  /** Where alerts go (the quality monitor's, in `start`); default one from `alerts`, counted on `registry`. */
  notifier?: AlertNotifier;
}

/** The prober of `probes.suites`, or undefined when none is configured. Not started. */
export async function createProber(config: RagwatchConfig, options: CreateProberOptions): Promise<Prober | undefined> {
  if (config.probes.suites.length === 0) return undefined;
  const suites = await loadSuites(config.probes.suites, config);
  const instruments = new ProbeInstruments(options.registry);
  const { alerts } = config;
  const notifier = options.notifier ?? alertNotifier(config, options.registry);
  const pii = piiCheckOf(config);
  const evaluators = createEvaluators(config);
  return new Prober({
    suites,
    instruments,
    ...(alerts.evaluate ? { alerts: new ProbeAlerts({ instruments, notifier, intervalMs: alerts.evaluationIntervalMs }) } : {}),
    thresholds: Object.fromEntries(Object.entries(alerts.metrics).map(([m, a]) => [m, a.threshold])),
    joinTimeoutMs: config.probes.joinTimeoutMs,
    firstRunDelayMs: config.probes.firstRunDelayMs,
    evaluationIntervalMs: alerts.evaluationIntervalMs,
    recordsPerTrace: options.recordsPerTrace ?? 1,
    ...(options.judge ? { fallback: { judge: options.judge, redactor: createRedactor(config.redaction), concurrency: config.judge.concurrency, ...(pii ? { pii } : {}), ...(evaluators ? { evaluators } : {}) } } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
}
