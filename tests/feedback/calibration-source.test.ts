/**
 * Feedback as a separate, marked label source of the calibration: with `calibration.labelMetrics.user_feedback`
 * the users' labels are fitted into calibrations of their own (labelMetric `user_feedback`, marked on the
 * page), never pooled with the reviewers' (the configuration refuses a metric under both), and reviewers
 * cannot post labels of that concept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CalibrationModel } from '../../src/calibration/types.ts';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { startApp } from '../../src/roles/start.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';
import { openInferenceTrace, postOtlp } from '../helpers/otlp.ts';
import { waitFor } from '../helpers/process.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'rw-feedback-cal-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("users' feedback as a calibration label source", () => {
  it('is refused for a metric the reviewers calibrate too', () => {
    expect(() => loadConfig({ env: {}, overrides: { calibration: { labelMetrics: { groundedness: ['groundedness'], user_feedback: ['groundedness'] } } } })).toThrow(/never mixed/);
  });

  it('fits a calibration of its own from the users’ labels, marked as such', async () => {
    const config = loadConfig({ env: {}, overrides: { server: { otlpPort: 0, httpPort: 0, otlpGrpc: false }, capture: { traceIdleMs: 50 }, metrics: { processMetrics: false }, store: { dataDir, maxReviewItemsPerSecond: 1e6 }, calibration: { labelMetrics: { groundedness: ['groundedness'], user_feedback: ['response_query_coverage'] }, minLabels: 10, refitIntervalMs: 200, refitMinNewLabels: 1 } } });
    const app = await startApp(config, silentLogger, { judge: new LexicalJudge() });
    try {
      await waitFor(() => app.pipeline.ready, 30_000);
      const base = `http://127.0.0.1:${app.otlp.port}`;
      const traces: string[] = [];
      // Answers that cover their question well (users happy) or not at all (users unhappy): the coverage score predicts the users' verdict.
      for (let i = 0; i < 24; i++) {
        const good = i % 2 === 0;
        const { body, traceId } = openInferenceTrace({ query: `When was tower ${i} built and by whom?`, documents: [{ content: `Tower ${i} was built in 1896 by the Baroda state.` }], response: good ? `Tower ${i} was built in 1896 by the Baroda state.` : 'I cannot say anything about that.' });
        expect((await postOtlp(`${base}/v1/traces`, JSON.stringify(body))).status).toBe(200);
        traces.push(traceId);
      }
      await waitFor(async () => (await (await fetch(`http://127.0.0.1:${app.http.port}/metrics`)).text()).includes('ragwatch_triplets_scored_total{judge="llm"} 24'), 30_000);
      for (const [i, traceId] of traces.entries()) {
        const res = await fetch(`${base}/v1/ragwatch/feedback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ traceId, thumbs: i % 2 === 0 ? 'up' : 'down' }) });
        expect(res.status).toBe(202);
      }
      const models = await waitFor(async () => {
        const c = (await (await fetch(`http://127.0.0.1:${app.http.port}/api/calibration`)).json()) as { calibrations: CalibrationModel[] };
        // A refit may run while the labels are still arriving (a loaded machine posts them slowly): wait for the one with all 24.
        return c.calibrations.find((m) => m.metric === 'response_query_coverage')?.n === 24 ? c.calibrations : undefined;
      }, 30_000, 200);
      expect(models.find((m) => m.metric === 'response_query_coverage')).toMatchObject({ judge: 'llm', labelMetric: 'user_feedback', n: 24 });
      // No reviewer label was given: no reviewers' calibration of groundedness appeared from the users' labels.
      expect(models.find((m) => m.metric === 'groundedness')).toBeUndefined();
      const page = await (await fetch(`http://127.0.0.1:${app.http.port}/calibration`)).text();
      expect(page).toContain('response_query_coverage (llm judge) ← end users’ feedback');
      // Reviewers cannot post labels of the users' concept.
      const tripletId = (await (await fetch(`http://127.0.0.1:${app.http.port}/api/review?limit=1`)).json() as { items: Array<{ tripletId: string }> }).items[0]!.tripletId;
      const refused = await fetch(`http://127.0.0.1:${app.http.port}/api/labels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tripletId, metric: 'user_feedback', value: 1 }) });
      expect(refused.status).toBe(400);
    } finally {
      await app.shutdown();
    }
  }, 90_000);
});
