/**
 * The scheduled prober inside `ragwatch start`, against the demo RAG service instrumented with the
 * real OTel SDK (OTLP/HTTP export to the app's ingest port):
 * - trace-id join: the service returns no sources, so the module attribution can only come from the
 *   captured trace — and it equals a direct run that reads the sources from the reply;
 * - `sourcesPath` fallback: an uninstrumented service's sources come from its reply and its answers
 *   are scored by the app's judge;
 * - the judge audit covers every answered probe; the probe series carry the run's figures; nothing
 *   reaches the production score series.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startDemoRag } from '../../scripts/demo-rag/service.ts';
import { startApp, type RunningApp } from '../../src/roles/start.ts';
import { loadProbeSuite } from '../../src/probes/load-suite.ts';
import { loadConfig } from '../../src/config/load.ts';
import { generateProbes, openFacts } from '../../src/probes/generate.ts';
import { runProbes, summarize, type ProbeReport } from '../../src/probes/runner.ts';

const EXAMPLE = resolve('config/probes/example/suite.yaml');
const dir = mkdtempSync(join(tmpdir(), 'ragwatch-prober-'));
const closers: Array<() => Promise<void>> = [];
let app: RunningApp;
let direct: ProbeReport;
/** Answered direct-run probes whose service retrieved something (a metric needs sources). */
let withSources: number;
let traced: ProbeReport;
let plain: ProbeReport;
let metrics: string;

/** The example suite under another name and target, fast limits, optionally without `sourcesPath`. */
function suiteFile(name: string, url: string, withSources: boolean): string {
  const doc = parse(readFileSync(EXAMPLE, 'utf8')) as Record<string, unknown> & { target: Record<string, unknown> };
  doc.suite = name;
  doc.csv = resolve('config/probes/example/facts');
  doc.target.url = url;
  if (!withSources) delete doc.target.sourcesPath;
  doc.limits = { maxQueriesPerTemplate: 20, concurrency: 8, perMinute: 60_000 };
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, stringify(doc));
  return file;
}

/** A port nothing listens on now (the app binds it right after). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

beforeAll(async () => {
  const otlpPort = await freePort();
  const demo = await startDemoRag({ hideSources: true, otlpUrl: `http://127.0.0.1:${otlpPort}` });
  const uninstrumented = await startDemoRag();
  closers.push(demo.close, uninstrumented.close);
  const config = loadConfig({
    env: {},
    overrides: {
      server: { otlpPort, otlpGrpcPort: 0, httpPort: 0 },
      capture: { traceIdleMs: 200 },
      // Scheduled far enough out to run them by hand here (the schedule itself: prober-schedule.test.ts).
      probes: { suites: [suiteFile('acme_traced', demo.url, false), suiteFile('acme_plain', uninstrumented.url, true)], firstRunDelayMs: 3_600_000, joinTimeoutMs: 20_000 },
    },
  });
  app = await startApp(config);
  const d = loadProbeSuite(suiteFile('acme_direct', uninstrumented.url, true));
  const outcomes = await runProbes(d.suite, generateProbes(d.suite, await openFacts(d.facts)));
  direct = summarize('acme_direct', outcomes);
  withSources = outcomes.filter((o) => o.outcome !== 'error' && (o.sources?.length ?? 0) > 0).length;
  traced = (await app.prober!.run('acme_traced'))!;
  plain = (await app.prober!.run('acme_plain'))!;
  metrics = await (await fetch(`http://127.0.0.1:${app.http.port}/metrics`)).text();
}, 120_000);

afterAll(async () => {
  await app?.shutdown();
  for (const close of closers) await close();
  rmSync(dir, { recursive: true, force: true });
});

describe('prober in ragwatch start × instrumented demo service', () => {
  it('joins every answered probe to its captured trace: attribution from the trace equals the one from reply sources', () => {
    expect(traced.queries).toBe(direct.queries);
    expect(traced.outcomes).toEqual(direct.outcomes);
    expect(traced.groups).toEqual(direct.groups);
    expect(traced.robustness).toBe(direct.robustness);
    expect(traced.failures.unknown).toBe(0);
    expect(traced.failures).toEqual(direct.failures);
  });

  it('audits the judge on every answered probe that retrieved something', () => {
    const lexical = traced.judges.find((j) => j.metric === 'grounding_lexical');
    expect(withSources).toBeGreaterThan(direct.queries / 2);
    // "I don't know." has no number or name to check: grounding_lexical skips abstentions (no_checkable_tokens).
    expect(traced.outcomes.abstained).toBeGreaterThan(0);
    expect(lexical?.n).toBe(withSources - traced.outcomes.abstained);
    expect(lexical?.wrong).toBe(traced.outcomes.wrong);
  });

  it('falls back to the reply sources and the app judge for an uninstrumented service', () => {
    expect(plain.failures).toEqual(direct.failures);
    expect(plain.judges).toEqual(traced.judges);
  });

  it('publishes the run on /metrics and keeps probe traffic out of the production series', () => {
    const value = (name: string, labels: string) => Number(new RegExp(`^${name}${labels ? `\\{${labels}\\}` : ''} (\\S+)$`, 'm').exec(metrics)?.[1]);
    expect(value('ragwatch_probe_accuracy_ratio', 'suite="acme_traced"')).toBeCloseTo(traced.accuracy!, 9);
    expect(value('ragwatch_probe_robustness_ratio', 'suite="acme_traced"')).toBeCloseTo(traced.robustness!, 9);
    expect(value('ragwatch_probe_groups', 'suite="acme_traced",template="product_launch",kind="gap"')).toBe(traced.templates.find((t) => t.name === 'product_launch')!.groups.gap);
    expect(value('ragwatch_probe_runs_total', 'suite="acme_traced",status="completed"')).toBe(1);
    // Every answered probe of the instrumented service was captured and scored, apart from production.
    expect(value('ragwatch_probe_score_records_total', '')).toBe(traced.queries - traced.outcomes.error);
    expect(metrics).not.toMatch(/^ragwatch_score_ratio_count\{[^}]*service="acme-rag-demo"/m);
    expect(metrics).not.toMatch(/^ragwatch_score_mean_ratio\{/m);
  });
});
