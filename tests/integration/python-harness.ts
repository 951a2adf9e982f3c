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
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { startApp, type RunningApp } from '../../src/roles/start.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.ts';
import { checkCapture, unscored, type Capabilities, type CaptureCheck } from '../capture/helpers/python-capture.ts';
import { PROMPT_CONTEXT_PATTERN, type Combination } from '../capture/helpers/python-combinations.ts';
import { startOtlpRecorder, type OtlpRecorder } from '../helpers/otlp-recorder.ts';
import { ROOT, waitFor } from '../helpers/process.ts';
import { runPythonService, scenarioResponder, type PythonRun } from '../helpers/python.ts';

/** The fake LLM's delay before the first streamed chunk. */
export const FIRST_CHUNK_DELAY_MS = 150;
/** capture.traceIdleMs of the test's ragwatch. */
const TRACE_IDLE_MS = 300;
export const FIXTURES = join(ROOT, 'tests/fixtures/otlp/python');
export type Transport = 'grpc' | 'http/protobuf';
export const TRANSPORTS: readonly Transport[] = ['grpc', 'http/protobuf'];

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
    this.fake = await startFakeOpenAI(scenarioResponder({ firstChunkDelayMs: FIRST_CHUNK_DELAY_MS }));
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
      instrument: combo.instrument ?? true,
      serviceName,
      otlp: { endpoint, protocol: transport },
      openaiBaseUrl: this.fake.baseURL,
      sessionId: `${serviceName}-conversation`,
      extraEnv: { ...combo.env_vars },
    });
    if (run.code !== 0) throw new Error(`${combo.id} over ${transport}: the service exited ${run.code}\n${run.stderr.slice(-4000)}`);
    const mine = () => this.#triplets.filter((t) => t.service === serviceName);
    // The SDK flushed at exit: every span is in. Wait until each turn is judged, then for stragglers.
    await waitFor(() => mine().length >= run.reports.length, 60_000, 100).catch(() => undefined);
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
