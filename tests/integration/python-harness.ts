/**
 * The live Python runs (tests/integration/python-*.test.ts): one `ragwatch start` (the role's code,
 * in this process, on real ports: OTLP/gRPC and OTLP/HTTP), the fake LLM, and a recorder in front of
 * the HTTP port. Each combination's service runs once per transport; its triplets and score records
 * are collected by service name and compared with the service's own reports.
 *
 * `RAGWATCH_WRITE_FIXTURES=1` writes what the HTTP run sent (the real spans and log records, OTLP/JSON),
 * the service's reports and the capabilities observed to tests/fixtures/otlp/python/<combination>/:
 * the unit layer's fixtures (tests/capture/python-fixtures.test.ts) and the source of the table in
 * docs/capture.md. Without it, the observed capabilities must equal the committed ones.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { startApp, type RunningApp } from '../../src/roles/start.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.ts';
import { checkCapture, unscored, type Capabilities, type CaptureCheck } from '../capture/helpers/python-capture.ts';
import { COMBINATIONS, PROMPT_CONTEXT_PATTERN, TRANSPORTS, type Combination, type Transport } from '../capture/helpers/python-combinations.ts';
import { startOtlpRecorder, type OtlpRecorder } from '../helpers/otlp-recorder.ts';
import { ROOT, waitFor } from '../helpers/process.ts';
import { havePython, runPythonService, scenarioResponder, type PythonRun } from '../helpers/python.ts';
import { bagOfWordsEmbedding } from '../fakes/openai-server.ts';

/** The fake LLM's delay before the first streamed chunk. */
export const FIRST_CHUNK_DELAY_MS = 150;
/** capture.traceIdleMs of the test's ragwatch. */
const TRACE_IDLE_MS = 300;
export const FIXTURES = join(ROOT, 'tests/fixtures/otlp/python');

/** The turns of a run that called the model (a search gives no triplet). */
const answered = (run: PythonRun) => run.reports.filter((r) => r.scenario !== 'search').length;

/** What one run of a combination gave. */
export interface CombinationRun {
  run: PythonRun;
  triplets: SampledTriplet[];
  records: ScoreRecord[];
  check: CaptureCheck;
  /** Triplets without a score record. */
  unscored: string[];
}

/** The committed capabilities of a combination (tests/fixtures/otlp/python/<id>/capture.json). */
export function committedCapabilities(id: string): Capabilities | undefined {
  const file = join(FIXTURES, id, 'capture.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { capabilities: Capabilities }).capabilities : undefined;
}

export class PythonHarness {
  app!: RunningApp;
  fake!: FakeOpenAI;
  recorder!: OtlpRecorder;
  #dir = '';
  readonly #triplets: SampledTriplet[] = [];
  readonly #records: ScoreRecord[] = [];

  async start(): Promise<void> {
    this.#dir = mkdtempSync(join(tmpdir(), 'ragwatch-python-'));
    const config = loadConfig({
      env: {},
      overrides: {
        server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0 },
        store: { dataDir: join(this.#dir, 'data') },
        metrics: { processMetrics: false },
        sampling: { rate: 1 },
        capture: { traceIdleMs: TRACE_IDLE_MS, custom: { promptContextPattern: PROMPT_CONTEXT_PATTERN } },
      },
    });
    this.app = await startApp(config, silentLogger);
    this.app.pipeline.sinks.add({
      onRecord: (record, triplet) => {
        this.#records.push(record);
        if (triplet) this.#triplets.push(triplet);
      },
    });
    this.fake = await startFakeOpenAI(scenarioResponder({ firstChunkDelayMs: FIRST_CHUNK_DELAY_MS }), { embed: (text) => bagOfWordsEmbedding(text) });
    this.recorder = await startOtlpRecorder({ forwardTo: `http://127.0.0.1:${this.app.otlp.port}` });
    await waitFor(() => this.app.pipeline.ready, 120_000, 200);
  }

  async stop(): Promise<void> {
    await this.recorder?.close();
    await this.fake?.close();
    await this.app?.shutdown();
    if (this.#dir) rmSync(this.#dir, { recursive: true, force: true });
  }

  /** Runs a combination's service over one transport; resolves once its turns are captured, scored and settled. */
  async run(combo: Combination, transport: Transport): Promise<CombinationRun> {
    const serviceName = `${combo.id}-${transport === 'grpc' ? 'grpc' : 'http'}`;
    const endpoint = transport === 'grpc' ? `http://127.0.0.1:${this.app.otlpGrpc!.port}` : this.recorder.endpoint;
    this.recorder.clear();
    const run = await runPythonService({
      env: combo.env,
      service: combo.service,
      instrumentation: combo.kind,
      ...(combo.instrument !== undefined ? { instrument: combo.instrument } : {}),
      serviceName,
      otlp: { endpoint, protocol: transport },
      openaiBaseUrl: this.fake.baseURL,
      scenarios: ['answer', 'stream', 'chat', 'search'],
      sessionId: `${serviceName}-conversation`,
      extraEnv: { ...combo.env_vars },
    });
    if (run.code !== 0) throw new Error(`${combo.id} over ${transport}: the service exited ${run.code}\n${run.stderr.slice(-4000)}`);
    const mine = () => this.#triplets.filter((t) => t.service === serviceName);
    // The SDK flushed at exit: every span is in. Wait until each turn is judged, then for stragglers.
    await waitFor(() => mine().length >= answered(run), 60_000, 100).catch(() => undefined);
    await new Promise((r) => setTimeout(r, TRACE_IDLE_MS * 4));
    const triplets = mine();
    const records = this.#records.filter((r) => r.service === serviceName);
    const check = checkCapture(run.reports, triplets, FIRST_CHUNK_DELAY_MS);
    if (transport === 'http/protobuf' && process.env.RAGWATCH_WRITE_FIXTURES === '1') this.#writeFixture(combo, run, check);
    return { run, triplets, records, check, unscored: unscored(triplets, records) };
  }

  #writeFixture(combo: Combination, run: PythonRun, check: CaptureCheck): void {
    const dir = join(FIXTURES, combo.id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'traces.json'), `${JSON.stringify(this.recorder.traces())}\n`);
    const logs = this.recorder.logs();
    if (logs.resourceLogs.length > 0) writeFileSync(join(dir, 'logs.json'), `${JSON.stringify(logs)}\n`);
    else rmSync(join(dir, 'logs.json'), { force: true });
    writeFileSync(join(dir, 'reports.json'), `${JSON.stringify(run.reports, null, 2)}\n`);
    writeFileSync(join(dir, 'capture.json'), `${JSON.stringify({ capabilities: check.capabilities }, null, 2)}\n`);
  }
}

/**
 * The suite of one environment: every combination of it, over OTLP/gRPC and OTLP/HTTP, through one
 * `ragwatch start`. Each answered turn is one triplet with the question, the retrieved documents and
 * the answer, and is scored; no other triplet appears; what is captured equals the committed
 * capabilities (capture.json).
 */
export function pythonCaptureSuite(env: string): void {
  const combos = COMBINATIONS.filter((c) => c.env === env);
  const ready = havePython(`python-${env}`, [env]);
  describe.skipIf(!ready)(`Python services in the ${env} environment → ragwatch start`, () => {
    const harness = new PythonHarness();
    beforeAll(() => harness.start(), 180_000);
    afterAll(() => harness.stop());

    for (const combo of combos) {
      for (const transport of TRANSPORTS) {
        it(`${combo.framework} + ${combo.instrumentation} over ${transport}`, { timeout: 240_000 }, async () => {
          const { run, triplets, check, unscored } = await harness.run(combo, transport);
          expect(run.reports.map((r) => `${r.scenario}/${r.turn}`)).toEqual(['answer/1', 'stream/1', 'chat/1', 'chat/2', 'search/1']);
          expect(run.reports.at(-1)!.sources.length).toBeGreaterThan(0);
          // What a library does not give is a missing capability (below), never a wrong value.
          expect(check.problems.filter((p) => !/^stream: TTFT/.test(p))).toEqual([]);
          expect(check.phantoms).toEqual([]);
          expect(triplets).toHaveLength(answered(run));
          expect(unscored).toEqual([]);
          expect(check.capabilities).toEqual(committedCapabilities(combo.id) ?? 'run once with RAGWATCH_WRITE_FIXTURES=1');
        });
      }
    }
  });
}
