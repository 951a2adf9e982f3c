/**
 * The Grafana dashboards: committed JSON equals a fresh build, shared variables and links exist,
 * every PromQL expression parses (Lezer, macros substituted), and — on a real Prometheus that
 * scraped `ragwatch start` fed by `npm run demo` traffic — every expression evaluates and returns
 * a non-empty result, except the panels listed in EMPTY_ON_START with the reason. The same live
 * setup (the chart's test-alert config and its `ragwatch rules`) proves docs/deploy.md's test alert fires.
 *
 * Why it takes about a minute: two live stacks (start + demo + Prometheus; collector + assembler +
 * scorer over Apache Kafka), each waiting for real Prometheus scrapes (the first ~5 s after start),
 * two scheduled probe runs, and the consumer-group joins.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { saveCalibrationFile } from '../../src/calibration/load-file.ts';
import { DASHBOARD_DIRS, buildDashboards } from '../../scripts/build-dashboards.ts';
import { DASHBOARDS, dashboardJson } from '../../dashboards/src/index.ts';
import { CAPTURE_RESIDUAL, SCORING_RESIDUAL, SPANS_RESIDUAL } from '../../dashboards/src/pipeline.ts';
import { latencyQuantile } from '../../dashboards/src/latency.ts';
import { haveBinaries, promAlerts, promQuery, scratchDir, startPrometheus, type LoopbackProcess } from '../helpers/prometheus.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.ts';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { BIN, ROOT, freePort, spawnRagwatch, waitFor, type RagwatchProcess } from '../helpers/process.ts';
import { oracleResponder } from '../judges/helpers/oracle.ts';
import { helmTemplate, ofKind, type K8sObject } from './chart-render.ts';
import { panelQueries, promqlSyntaxError, substitute, type PanelQuery } from './dashboard-queries.ts';
import { EVALUATOR_VARIABLE_QUERY } from '../../dashboards/src/evaluators.ts';
import { WORKED_EXAMPLES } from '../evaluators/worked-examples.ts';

// `$evaluator` as Grafana's "All" gives it: a check both instances score, and an llm evaluator the embedded
// instance skips (no_llm_judge) and the LLM instance scores.
const SUBST = { rateInterval: '20s', window: '2m', metric: 'grounding_lexical', evaluator: '(cites_source|no_dosage_advice)' };
/** The evaluators both live instances run (docs/evaluators.md's worked examples). */
const LIVE_EVALUATORS = WORKED_EXAMPLES.filter((e) => e.name === 'cites_source' || e.name === 'no_dosage_advice');

/**
 * Series that cannot exist on `ragwatch start` (in-memory queue), by a metric name the expression
 * contains. Each must really be empty there (checked), so a stale entry fails; the split-mode run
 * below checks that they do return data from `ragwatch collector` + `ragwatch scorer`.
 */
const EMPTY_ON_START: Record<string, string> = {
  ragwatch_kafka_consumer_lag_messages: 'Kafka mode only (ragwatch scorer); start uses the in-memory queue',
  ragwatch_kafka_producer_buffer_messages: 'Kafka mode only (ragwatch collector); start uses the in-memory queue',
  ragwatch_assembler_lag_messages: 'split assembly only (ragwatch assembler)',
  'ragwatch_spans_received_total{source="kafka"}': 'split assembly only (ragwatch assembler reading the spans topic)',
};

/**
 * Judge-audit precision is undefined (absent) while a judge flags none of the probe answers: the demo
 * service's wrong answers are extractive, grounded in the wrongly retrieved page, and the embedded
 * judge may pass them all. Then recall must be 0 for every metric (checked), else precision must exist.
 */
const PRECISION = 'ragwatch_probe_judge_precision_ratio';

/** Flagged weakness cells exist only where some cell is worse than the rest of the traffic. */
const FLAGGED = 'ragwatch_weakness_flagged';

/** Series no demo produces, in either mode; each is checked elsewhere on real data (the reason says where). */
const NOT_IN_DEMO: Record<string, string> = {
  ragwatch_exam_: 'exams are taken per release by `ragwatch exam take` (tests/exams/e2e.integration.test.ts checks the series); the demo takes none',
  'window="baseline"': 'a change baseline needs alerts.change.minBaselineSamples judged answers (1000 by default: two hours at 0.2/s); the test instance asks a million (tests/change/monitor.test.ts checks the series)',
  ragwatch_conversations_flagged_ratio: 'the demo traffic carries no conversation id (tests/e2e/conversations.test.ts checks the series)',
  ragwatch_slo_: 'SLOs are opt-in per metric (alerts.metrics.<metric>.slo); the demo configures none (tests/slo/slo.test.ts checks the series)',
};

/** The expression without its `(sum(x) or vector(0))` terms: those return 0 rather than nothing where x has no series. */
function withoutTotals(expr: string): string {
  return expr.replace(/\(sum\([^()]*\) or vector\(0\)\)/g, '');
}

function emptyReason(expr: string): string | undefined {
  return Object.entries({ ...EMPTY_ON_START, ...NOT_IN_DEMO }).find(([metric]) => withoutTotals(expr).includes(metric))?.[1];
}

function kafkaOnly(expr: string): boolean {
  return Object.keys(EMPTY_ON_START).some((metric) => withoutTotals(expr).includes(metric));
}

const queries: PanelQuery[] = DASHBOARDS.flatMap((d) => panelQueries(d.build()));

describe('dashboards (offline)', () => {
  it('committed JSON equals a fresh build (dashboards/ and the chart copy)', () => {
    expect(buildDashboards(true)).toEqual([]);
    for (const def of DASHBOARDS) {
      for (const dir of DASHBOARD_DIRS) expect(readFileSync(join(ROOT, dir, def.file), 'utf8')).toBe(dashboardJson(def.build()));
    }
  });

  it('have unique uids, the datasource/service/route variables and query the datasource variable', () => {
    const uids = DASHBOARDS.map((d) => d.build().uid);
    expect(new Set(uids).size).toBe(DASHBOARDS.length);
    for (const def of DASHBOARDS) {
      const dash = def.build();
      const vars = (dash.templating?.list ?? []).map((v) => `${v.type}:${v.name}`);
      expect(vars).toEqual(expect.arrayContaining(['datasource:datasource', 'query:service', 'query:route']));
      for (const p of (dash.panels ?? []) as Array<{ type: string; datasource?: { uid?: string } }>) {
        if (p.type !== 'row') expect(p.datasource?.uid, `${dash.title}: panel datasource`).toBe('${datasource}');
      }
    }
  });

  it('lay out panels on the 24-column grid without overflow or overlap', () => {
    for (const def of DASHBOARDS) {
      const boxes = ((def.build().panels ?? []) as Array<{ title?: string; gridPos?: { x: number; y: number; w: number; h: number } }>).map((p) => ({ title: p.title, ...p.gridPos! }));
      for (const [i, a] of boxes.entries()) {
        expect(a.x + a.w, `${def.file}: ${a.title}`).toBeLessThanOrEqual(24);
        for (const b of boxes.slice(i + 1)) {
          const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
          expect(overlap, `${def.file}: ${a.title} overlaps ${b.title}`).toBe(false);
        }
      }
    }
  });

  it('RAG quality has a stat per metric coloured by its threshold, mean + threshold series, heatmap, alerts, diagnosis and the examples link', () => {
    const dash = DASHBOARDS.find((d) => d.file === 'ragwatch-quality.json')!.build();
    const panels = (dash.panels ?? []) as Array<{ type: string; title?: string; repeat?: string; targets?: Array<{ expr: string }>; transformations?: Array<{ id: string }> }>;
    const stat = panels.find((p) => p.type === 'stat' && p.repeat === 'metric');
    expect(stat?.transformations?.map((t) => t.id)).toContain('configFromData');
    expect(stat?.targets?.map((t) => t.expr).join(' ')).toContain('ragwatch_threshold_ratio');
    const series = panels.find((p) => p.type === 'timeseries' && p.repeat === 'metric');
    expect(series?.targets?.map((t) => t.expr).join(' ')).toContain('ragwatch_threshold_ratio');
    expect(panels.map((p) => p.type)).toContain('heatmap');
    const exprs = panels.flatMap((p) => p.targets?.map((t) => t.expr) ?? []).join(' ');
    for (const m of ['ragwatch_alert_active', 'ragwatch_diagnosis_active', 'ragwatch_score_samples_total']) expect(exprs).toContain(m);
    expect((dash.links ?? []).map((l) => l.url)).toContain('${ragwatch_url}/examples');
  });

  it.each(queries.map((q) => [`${q.dashboard} / ${q.panel}: ${q.expr}`, q] as const))('parses: %s', (_name, q) => {
    // The raw macro is a parse error in Prometheus, so substitution must be what makes it valid.
    const expr = substitute(q.expr, SUBST);
    expect(expr).not.toContain('$');
    expect(promqlSyntaxError(expr), expr).toBeUndefined();
  });

  it('the syntax check catches broken PromQL (guard against a check that cannot fail)', () => {
    expect(promqlSyntaxError('sum(rate(x[5m]')).toBeDefined();
    expect(promqlSyntaxError('rate(x[$__rate_interval])')).toBeDefined();
  });
});

describe('live: ragwatch start (chart test-alert config; and an LLM-judge instance) + npm run demo + Prometheus with the chart rules', () => {
  const enabled = haveBinaries('dashboard PromQL and test alert on a live Prometheus', 'prometheus');
  let ragwatch: RagwatchProcess | undefined;
  let ragwatchLlm: RagwatchProcess | undefined;
  let fake: FakeOpenAI | undefined;
  const demos: ChildProcess[] = [];
  let prometheus: LoopbackProcess | undefined;
  const scratch = scratchDir('ragwatch-dashboards-');
  let uiUrl = '';

  beforeAll(async () => {
    if (!enabled) return;
    // The ragwatch config and rules exactly as docs/deploy.md's test alert installs them.
    const objects = helmTemplate(['-f', join(ROOT, 'helm', 'examples', 'test-alert.values.yaml')]);
    const cm = ofKind<K8sObject & { data: Record<string, string> }>(objects, 'ConfigMap').find((c) => c.metadata.name.endsWith('-config'))!;
    // Plus topics after 60 questions (default 500; the demo asks 300 distinct ones), so the topic panels have data,
    // and a change alert on the test alert's metric (its severity is `test`, so it has none by default), so the
    // change panels have data from this instance rather than from the LLM instance's companion judge, which may
    // not have scored anything yet on a loaded machine.
    const chartConfig = parse(cm.data['ragwatch.yaml']!) as { alerts: { metrics: Record<string, Record<string, unknown>> } };
    chartConfig.alerts.metrics.grounding_lexical = { ...chartConfig.alerts.metrics.grounding_lexical, change: true };
    // A change baseline needs alerts.change.minBaselineSamples answers: on a fast machine the demo reaches the default
    // 1000 within the test, so the baseline panel is made empty by design rather than by timing.
    const alertsConfig = chartConfig.alerts as Record<string, unknown>;
    alertsConfig.change = { ...(alertsConfig.change as Record<string, unknown> | undefined), minBaselineSamples: 1_000_000 };
    const configFile = scratch.write('ragwatch.yaml', { ...chartConfig, weakness: { warmupQueries: 60, topicCount: 6 }, evaluators: LIVE_EVALUATORS });
    const rules = spawnSync(process.execPath, [BIN, 'rules', '-c', configFile], { cwd: ROOT, encoding: 'utf8' });
    expect(rules.status, rules.stderr).toBe(0);
    const rulesFile = scratch.write('rules.yml', rules.stdout);
    // A second all-in-one with the LLM judge (a local OpenAI-compatible server answering like a
    // judge model) so the judge request/token/cost panels have data too.
    fake = await startFakeOpenAI(oracleResponder());
    const llmConfigFile = scratch.write('ragwatch-llm.yaml', {
      judge: { kind: 'llm', model: 'judge-model', baseUrl: fake.baseURL, apiKey: 'test-key', llm: { prices: { 'judge-model': { inputPerMillion: 0.15, outputPerMillion: 0.6 } } } },
      evaluators: LIVE_EVALUATORS,
    });
    const [otlpPort, httpPort, llmOtlpPort, llmHttpPort, ragPort] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
    const env = (otlp: number, http: number) => ({ RAGWATCH_OTLP_PORT: String(otlp), RAGWATCH_OTLP_GRPC_PORT: '0', RAGWATCH_HTTP_PORT: String(http), RAGWATCH_LOG_LEVEL: 'warn' });
    // The probes demo (config/demo.yaml's suite), pointed at the demo RAG service `npm run demo` starts on ragPort.
    const suite = parse(readFileSync(join(ROOT, 'config', 'probes', 'example', 'suite.yaml'), 'utf8')) as { csv: string; target: { url: string } };
    suite.csv = join(ROOT, 'config', 'probes', 'example', 'facts');
    suite.target.url = `http://127.0.0.1:${ragPort}/ask`;
    const suiteFile = scratch.write('suite.yaml', suite);
    // A saved calibration of the embedded grounding_lexical (docs/calibration.md), so the calibration row has data.
    const calibrationFile = join(scratch.dir, 'calibration.json');
    saveCalibrationFile(calibrationFile, [{ metric: 'grounding_lexical', judge: 'embedded', labelMetric: 'groundedness', map: { method: 'platt', a: -6, b: 3 }, conformal: { alpha: 0.1, qhat: 0.7, n: 200 }, n: 1000, brier: 0.15, fittedAt: new Date().toISOString() }]);
    uiUrl = `http://127.0.0.1:${httpPort}`;
    ragwatch = spawnRagwatch(['start', '-c', configFile], { ...env(otlpPort, httpPort), RAGWATCH_PROBE_SUITES: suiteFile, RAGWATCH_CALIBRATION_FILE: calibrationFile, RAGWATCH_DATA_DIR: join(scratch.dir, 'data') });
    // Its own data directory too: the default (./data) keeps the history of every earlier run in a developer's checkout, whose change baseline then has data.
    ragwatchLlm = spawnRagwatch(['start', '-c', llmConfigFile], { ...env(llmOtlpPort, llmHttpPort), RAGWATCH_DATA_DIR: join(scratch.dir, 'data-llm') });
    for (const port of [httpPort, llmHttpPort]) await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok, 30_000, 200);
    // The demo as an operator runs it (`npm run demo -- --mode ungrounded`), until killed.
    for (const [port, rate, rag] of [[otlpPort, '8', String(ragPort)], [llmOtlpPort, '2', 'off']] as const) {
      demos.push(spawn(process.execPath, [join(ROOT, 'scripts', 'demo.ts'), '--url', `http://127.0.0.1:${port}`, '--rate', rate, '--count', '0', '--mode', 'ungrounded', '--rag-port', rag], { cwd: ROOT, stdio: 'ignore' }));
    }
    const targets = [`127.0.0.1:${httpPort}`, `127.0.0.1:${llmHttpPort}`];
    prometheus = await startPrometheus({ targets, ruleFiles: [rulesFile], dir: scratch.dir, interval: '1s' });
    // Two scrapes with scored triplets are needed before rate()/increase() have a value.
    for (const judge of ['embedded', 'llm']) {
      await waitFor(async () => (await promQuery(prometheus!.url, `increase(ragwatch_score_samples_total{judge="${judge}"}[20s]) > 0`)).length > 0, 60_000, 500);
    }
    // The first probe run (10 s after start, ~25 s of questions) has completed and been scraped twice.
    await waitFor(async () => (await promQuery(prometheus!.url, 'count_over_time(ragwatch_probe_last_run_timestamp_seconds[1m]) > 1')).length > 0, 90_000, 500);
  }, 240_000);

  afterAll(async () => {
    for (const demo of demos) demo.kill('SIGKILL');
    await prometheus?.stop();
    for (const proc of [ragwatch, ragwatchLlm]) {
      if (proc && proc.child.exitCode === null) {
        proc.child.kill('SIGKILL');
        await proc.exited;
      }
    }
    await fake?.close();
    scratch.cleanup();
  });

  it.skipIf(!enabled)('every dashboard expression evaluates; all but the listed Kafka-only panels return data', async () => {
    const failures: string[] = [];
    const expectedEmpty: string[] = [];
    for (const q of queries) {
      const expr = substitute(q.expr, SUBST);
      const reason = emptyReason(expr);
      if (expr.includes(PRECISION) && (await promQuery(prometheus!.url, expr)).length === 0) {
        const recall = await promQuery(prometheus!.url, 'max(ragwatch_probe_judge_recall_ratio)');
        if (recall.length !== 1 || Number(recall[0]!.value[1]) !== 0) failures.push(`${q.panel}: no precision although some wrong probe answer was flagged (recall ${JSON.stringify(recall)})`);
        else expectedEmpty.push(`${q.panel}: precision undefined — the judge flagged no probe answer (recall 0)`);
        continue;
      }
      if (expr.includes(FLAGGED) && (await promQuery(prometheus!.url, expr)).length === 0) {
        // Consistent only if ragwatch itself flags no cell of the metric (its /weaknesses page, loopback: no token needed).
        const page = await (await fetch(`${uiUrl}/weaknesses`)).text();
        if (page.includes(`<li><b>${SUBST.metric}</b>`)) failures.push(`${q.panel}: no flagged series although /weaknesses flags a ${SUBST.metric} cell`);
        else expectedEmpty.push(`${q.panel}: no ${SUBST.metric} cell is worse than the rest of the demo traffic`);
        continue;
      }
      let result: unknown[];
      try {
        // Poll a little: some series appear only after the first windows fill.
        result = await waitFor(async () => {
          const samples = await promQuery(prometheus!.url, expr);
          return samples.length > 0 || reason ? samples : undefined;
        }, 15_000, 500);
      } catch (err) {
        failures.push(`${q.dashboard} / ${q.panel}: ${String(err)}`);
        continue;
      }
      if (reason) {
        if (result.length > 0) failures.push(`${q.dashboard} / ${q.panel}: listed as empty on start (${reason}) but returned data: ${expr}`);
        else expectedEmpty.push(`${q.panel}: ${reason}`);
      }
    }
    if (expectedEmpty.length > 0) console.info(`dashboard panels empty on ragwatch start, by design:\n  ${expectedEmpty.join('\n  ')}`);
    expect(failures).toEqual([]);
    expect(queries.length - expectedEmpty.length).toBeGreaterThan(20);
    // The service and route variables have values to pick (label_values of the latency histogram).
    const series = await promQuery(prometheus!.url, 'ragwatch_response_duration_seconds_count');
    expect(new Set(series.map((x) => x.metric.service))).toContain('rag-demo');
    expect(new Set(series.map((x) => x.metric.route))).toContain('/ask');
    const oneRoute = substitute(latencyQuantile('ragwatch_time_to_first_token_seconds', 0.95), SUBST).replace('route=~".*"', 'route=~"/ask"');
    expect((await promQuery(prometheus!.url, oneRoute)).length).toBeGreaterThan(0);
  }, 240_000);

  it.skipIf(!enabled)('the evaluators dashboard gets a row per configured evaluator: its variable lists them from the exported registry, and each row has data', async () => {
    // What Grafana runs for the `evaluator` variable (label_values over the series the registry exports).
    const match = /^label_values\((.+), metric\)$/.exec(EVALUATOR_VARIABLE_QUERY)![1]!;
    const names = new Set((await promQuery(prometheus!.url, match)).map((s) => s.metric.metric));
    expect([...names].sort()).toEqual(['cites_source', 'no_dosage_advice']);
    const rows = queries.filter((q) => q.dashboard === 'ragwatch / Evaluators' && q.expr.includes('$evaluator'));
    expect(rows.length).toBeGreaterThanOrEqual(5);
    for (const evaluator of names) {
      for (const q of rows) {
        // A check is never skipped on the demo's answers (they have sources): that panel may be empty for it.
        if (evaluator === 'cites_source' && q.expr.includes('ragwatch_scores_skipped_total')) continue;
        const expr = substitute(q.expr, { ...SUBST, evaluator });
        await waitFor(async () => (await promQuery(prometheus!.url, expr)).length > 0, 30_000, 500).catch(() => {
          throw new Error(`${evaluator}: no data for ${q.panel}: ${expr}`);
        });
      }
    }
    // The llm evaluator: scored by the LLM instance, skipped (never 0) by the embedded one.
    // Over a range: one slow scrape on a loaded machine leaves an instant query of a target's series empty.
    const judges = await promQuery(prometheus!.url, 'sum by (judge) (max_over_time(ragwatch_score_ratio_count{metric="no_dosage_advice"}[2m]))');
    expect(judges.map((s) => s.metric.judge)).toEqual(['llm']);
    expect((await promQuery(prometheus!.url, 'sum(max_over_time(ragwatch_scores_skipped_total{metric="no_dosage_advice",reason="no_llm_judge"}[2m])) > 0')).length).toBe(1);
  }, 180_000);

  it.skipIf(!enabled)('the test alert of docs/deploy.md fires in Prometheus and in ragwatch\'s own evaluator', async () => {
    const firing = await waitFor(async () => {
      const alerts = await promAlerts(prometheus!.url);
      return alerts.find((a) => a.labels.alertname === 'RagwatchGroundingLexicalLow' && a.state === 'firing');
    }, 90_000, 1_000);
    expect(firing.labels).toMatchObject({ severity: 'test', metric: 'grounding_lexical', judge: 'embedded', service: 'rag-demo' });
    expect(Number(firing.value)).toBeLessThan(0.7);
    expect(firing.annotations.summary).toMatch(/^grounding_lexical 0\.\d\d < 0\.7 over 1m \(n=\d+\) for rag-demo$/);
    expect(firing.annotations.examples).toContain('http://localhost:9464/examples?metric=grounding_lexical');
    // The quality dashboard's "Active alerts" panel reads ragwatch_alert_active.
    await waitFor(async () => (await promQuery(prometheus!.url, 'ragwatch_alert_active{metric="grounding_lexical"} == 1')).length > 0, 60_000, 1_000);
  }, 180_000);
});

describe('live: the chart in split mode (ragwatch collector + assembler + scorer over Apache Kafka) fills the Kafka panels', () => {
  const enabled = haveBinaries('dashboard Kafka panels on a live Prometheus', 'prometheus') && haveKafka('dashboard Kafka panels');
  const procs: RagwatchProcess[] = [];
  let kafka: KafkaTestCluster | undefined;
  let demo: ChildProcess | undefined;
  let prometheus: LoopbackProcess | undefined;
  const scratch = scratchDir('ragwatch-dashboards-kafka-');

  beforeAll(async () => {
    if (!enabled) return;
    kafka = await startKafkaCluster();
    // The config and environment the chart gives both roles in split mode (brokers: the test cluster's, which has no SASL).
    const objects = helmTemplate(['-f', join(ROOT, 'helm', 'examples', 'kafka-split.values.yaml')]);
    const cm = ofKind<K8sObject & { data: Record<string, string> }>(objects, 'ConfigMap').find((c) => c.metadata.name.endsWith('-config'))!;
    const config = parse(cm.data['ragwatch.yaml']!) as { transport: { kafka: { sasl?: unknown } } };
    delete config.transport.kafka.sasl;
    const configFile = scratch.write('ragwatch.yaml', JSON.stringify(config));
    const ports = { collectorOtlp: await freePort(), collectorHttp: await freePort(), assemblerOtlp: await freePort(), assemblerHttp: await freePort(), scorerOtlp: await freePort(), scorerHttp: await freePort() };
    const env = (otlp: number, http: number) => ({
      RAGWATCH_TRANSPORT: 'kafka',
      RAGWATCH_KAFKA_BROKERS: kafka!.brokers.join(','),
      RAGWATCH_SAMPLE_RATE: '1',
      RAGWATCH_OTLP_PORT: String(otlp),
      RAGWATCH_OTLP_GRPC_PORT: '0',
      RAGWATCH_HTTP_PORT: String(http),
      RAGWATCH_LOG_LEVEL: 'warn',
      // What the chart's pseudonym-key Secret gives every role.
      RAGWATCH_REDACTION_HMAC_KEY: 'dashboards-split-hmac-key-0123456789abcdef',
    });
    procs.push(spawnRagwatch(['collector', '-c', configFile], env(ports.collectorOtlp, ports.collectorHttp)));
    procs.push(spawnRagwatch(['assembler', '-c', configFile], env(ports.assemblerOtlp, ports.assemblerHttp)));
    procs.push(spawnRagwatch(['scorer', '-c', configFile], env(ports.scorerOtlp, ports.scorerHttp)));
    for (const port of [ports.collectorHttp, ports.assemblerHttp, ports.scorerHttp]) await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok, 60_000, 250);
    demo = spawn(process.execPath, [join(ROOT, 'scripts', 'demo.ts'), '--url', `http://127.0.0.1:${ports.collectorOtlp}`, '--rate', '5', '--count', '0'], { cwd: ROOT, stdio: 'ignore' });
    prometheus = await startPrometheus({ targets: [`127.0.0.1:${ports.collectorHttp}`, `127.0.0.1:${ports.assemblerHttp}`, `127.0.0.1:${ports.scorerHttp}`], dir: scratch.dir, interval: '1s' });
  }, 120_000);

  afterAll(async () => {
    demo?.kill('SIGKILL');
    await prometheus?.stop();
    for (const proc of procs) {
      if (proc.child.exitCode === null) {
        proc.child.kill('SIGKILL');
        await proc.exited;
      }
    }
    await kafka?.stop();
    scratch.cleanup();
  });

  it.skipIf(!enabled)('every Kafka-only expression returns data', async () => {
    const kafkaQueries = queries.filter((q) => kafkaOnly(q.expr));
    expect(kafkaQueries.length).toBeGreaterThanOrEqual(2);
    const failures: string[] = [];
    for (const q of kafkaQueries) {
      const expr = substitute(q.expr, SUBST);
      try {
        await waitFor(async () => (await promQuery(prometheus!.url, expr)).length > 0, 45_000, 500);
      } catch (err) {
        failures.push(`${q.dashboard} / ${q.panel}: ${expr}: ${String(err)}`);
      }
    }
    expect(failures).toEqual([]);
    // The scorer really scored what the collector produced.
    expect((await promQuery(prometheus!.url, 'sum(ragwatch_triplets_scored_total) > 0')).length).toBe(1);
  }, 120_000);

  it.skipIf(!enabled)('once the traffic stops, every accounting identity residual returns to 0 (spans: collector → assembler; triplets: assembler → scorer)', async () => {
    demo!.kill('SIGKILL');
    await new Promise((resolve) => demo!.once('exit', resolve));
    const residuals = { capture: CAPTURE_RESIDUAL, spans: SPANS_RESIDUAL, scoring: SCORING_RESIDUAL };
    const values = async () => Object.fromEntries(await Promise.all(Object.entries(residuals).map(async ([name, expr]) => [name, Number((await promQuery(prometheus!.url, expr))[0]?.value[1])])));
    let last: Record<string, number> = {};
    await waitFor(async () => {
      last = await values();
      return Object.values(last).every((v) => v === 0);
    }, 45_000, 1_000).catch(() => undefined);
    expect(last).toEqual({ capture: 0, spans: 0, scoring: 0 });
    // …and they are residuals of real traffic, not of empty counters.
    expect(Number((await promQuery(prometheus!.url, 'sum(ragwatch_spans_forwarded_total)'))[0]?.value[1])).toBeGreaterThan(50);
  }, 60_000);
});
