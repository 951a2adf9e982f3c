/**
 * The two test layers (docs/testing.md) stay honest: every test file that starts an external binary
 * — Kafka (the JVM brokers; `kcat` reads topics), Prometheus/promtool/Alertmanager, Chromium, helm, Python, the OpenTelemetry Collector — is an integration file
 * (`tests/integration/` or `*.integration.test.ts`), so `npm test` needs nothing beyond Node; and the
 * two projects of vitest.config.ts together select every test file outside the fault suite once.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, matchesGlob, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import config, { INTEGRATION } from '../../vitest.config.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const TESTS = join(ROOT, 'tests');

/** Calls that start a binary, by the helper that wraps it. */
const BINARY_CALLS = /\b(?:startPhoenix|phoenixVenv|startPrometheus|startAlertmanager|promtool|haveKafka|startKafkaCluster|inChromium|helmTemplate|readTopicOnce|startRole|havePython|runPythonService|startCollector|haveCollector|llamaServerVenv|startLlamaServer)\s*\(|chromium\.launch|haveBinaries\([^)]*'(?:promtool|prometheus|alertmanager|chromium|kcat|helm)'/;
/** Helper modules whose every use needs a binary. */
const BINARY_MODULES = new Set(['tests/helpers/phoenix.ts', 'tests/helpers/kafka-mock.ts', 'tests/helpers/kafka-broker.ts', 'tests/helpers/chromium.ts', 'tests/deploy/chart-render.ts', 'tests/integration/kafka-process.ts', 'tests/helpers/python.ts', 'tests/integration/python-harness.ts', 'tests/helpers/otel-collector.ts', 'tests/helpers/llama-server.ts']);

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Relative `.ts` imports of a file, as repository paths. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/from '(\.{1,2}\/[^']+\.ts)'/g)].map((m) => relative(ROOT, resolve(dirname(file), m[1]!)));
}

/** Does `file`, or a test module it imports (transitively), need a binary? Returns the reason. */
function needsBinary(file: string, seen = new Set<string>()): string | undefined {
  const rel = relative(ROOT, file);
  if (seen.has(rel)) return undefined;
  seen.add(rel);
  if (BINARY_MODULES.has(rel)) return `imports ${rel}`;
  const m = BINARY_CALLS.exec(readFileSync(file, 'utf8'));
  if (m && !rel.startsWith('tests/helpers/prometheus.ts')) return `${rel} calls ${m[0]}`;
  for (const dep of imports(file)) {
    // Fixture trees write import lines into strings: only real files count.
    if (!dep.startsWith('tests/') || dep === 'tests/helpers/prometheus.ts' || !existsSync(join(ROOT, dep))) continue;
    const why = needsBinary(join(ROOT, dep), seen);
    if (why) return why;
  }
  return undefined;
}

const files = walk(TESTS).filter((f) => f.endsWith('.test.ts')).map((f) => relative(ROOT, f));
const isIntegration = (f: string) => INTEGRATION.some((g) => matchesGlob(f, g));
const projects = (config.test?.projects ?? []) as Array<{ test: { name: string; include: string[]; exclude: string[] } }>;
const selectedBy = (f: string) => projects.filter((p) => p.test.include.some((g) => matchesGlob(f, g)) && !p.test.exclude.some((g) => matchesGlob(f, g))).map((p) => p.test.name);

describe('test layers', () => {
  it('every file that needs kcat, Prometheus, Chromium, helm or Python is an integration file', () => {
    const offenders = files.filter((f) => !f.startsWith('tests/faults/') && !isIntegration(f)).map((f) => [f, needsBinary(join(ROOT, f))]).filter(([, why]) => why !== undefined);
    expect(offenders).toEqual([]);
  });

  it('the check bites: it finds the binaries of known integration files', () => {
    expect(needsBinary(join(ROOT, 'tests/integration/kafka-roles.test.ts'))).toMatch(/kafka-process|kafka-broker|haveKafka/);
    expect(needsBinary(join(ROOT, 'tests/metrics/rules.integration.test.ts'))).toMatch(/promtool/);
    expect(needsBinary(join(ROOT, 'tests/server/pages.integration.test.ts'))).toMatch(/chromium|inChromium/);
    expect(needsBinary(join(ROOT, 'tests/deploy/helm-chart.integration.test.ts'))).toMatch(/chart-render|helmTemplate/);
    expect(needsBinary(join(ROOT, 'tests/integration/python-openinference.test.ts'))).toMatch(/python|havePython/);
    expect(needsBinary(join(ROOT, 'tests/integration/collector-grpc.test.ts'))).toMatch(/otel-collector|startCollector|haveCollector/);
  });

  it('each test file outside the fault suite runs in exactly one project', () => {
    const wrong = files.filter((f) => !f.startsWith('tests/faults/')).map((f) => [f, selectedBy(f)] as const).filter(([f, p]) => p.length !== 1 || p[0] !== (isIntegration(f) ? 'integration' : 'unit'));
    expect(wrong).toEqual([]);
    expect(files.filter((f) => f.startsWith('tests/faults/')).every((f) => selectedBy(f).length === 0)).toBe(true);
  });
});
