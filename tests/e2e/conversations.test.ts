/**
 * Issue 33 acceptance, through `ragwatch start` (in process, real ports): 40 two-turn conversations
 * (OpenInference spans with `session.id` and the earlier turns in `llm.input_messages`) at
 * `sampling.rate: 0.5` — every conversation is judged whole (both turns) or not at all, about half of
 * them; a follow-up's score record and its examples entry carry the conversation id and its history;
 * `/examples?conversation=ID` lists its judged turns in order; `ragwatch_conversations_flagged_ratio`
 * says which share of the conversations had a low answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { startApp, type RunningApp } from '../../src/roles/start.ts';
import type { ScoreRecord } from '../../src/triplet.ts';
import { CLOCK_TOWER, openInferenceTrace, postOtlp } from '../helpers/otlp.ts';
import { metricValue, waitFor } from '../helpers/process.ts';

const CONVERSATIONS = 40;
let dir: string;
let app: RunningApp;
const records: ScoreRecord[] = [];
let http: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ragwatch-conversations-'));
  const config = loadConfig({
    env: {},
    overrides: {
      server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0 },
      store: { dataDir: join(dir, 'data') },
      metrics: { processMetrics: false },
      sampling: { rate: 0.5 },
      capture: { traceIdleMs: 200 },
      // Every follow-up below scores low on completeness: the examples buffer keeps them.
      alerts: { metrics: { completeness: { threshold: 0.99 } } },
    },
  });
  app = await startApp(config, silentLogger);
  app.pipeline.sinks.add({ onRecord: (r) => void records.push(r) });
  http = `http://127.0.0.1:${app.http.port}`;
  await waitFor(() => app.pipeline.ready, 60_000);
  const otlp = `http://127.0.0.1:${app.otlp.port}/v1/traces`;
  for (let c = 0; c < CONVERSATIONS; c++) {
    const sessionId = `conv-${c}`;
    const first = { ...CLOCK_TOWER, sessionId };
    const second = { ...CLOCK_TOWER, sessionId, query: 'When was the Chimnabai Clock Tower completed?', history: [{ role: 'user' as const, content: CLOCK_TOWER.query }, { role: 'assistant' as const, content: CLOCK_TOWER.response }] };
    for (const req of [first, second]) {
      const res = await postOtlp(otlp, JSON.stringify(openInferenceTrace(req).body));
      expect(res.status).toBe(200);
    }
  }
  await waitFor(() => {
    const m = app.pipeline.instruments;
    return records.length > 0 && app.quality.status().means.length > 0 && m !== undefined;
  }, 30_000);
  // Everything captured is either judged or not sampled: wait until the identity settles.
  await waitFor(async () => {
    const text = await (await fetch(`${http}/metrics`)).text();
    const captured = metricValue(text, 'ragwatch_triplets_captured_total') ?? 0;
    const scored = metricValue(text, 'ragwatch_triplets_scored_total', { judge: 'embedded' }) ?? 0;
    const notSampled = metricValue(text, 'ragwatch_triplets_not_sampled_total') ?? 0;
    return captured === 2 * CONVERSATIONS && scored + notSampled === captured;
  }, 60_000);
}, 120_000);

afterAll(async () => {
  await app?.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

describe('conversations through ragwatch start', () => {
  it('judges every conversation whole or not at all, about half of them at rate 0.5', () => {
    const turns = new Map<string, number[]>();
    for (const r of records) turns.set(r.conversation!.id!, [...(turns.get(r.conversation!.id!) ?? []), r.conversation!.turn]);
    expect([...turns.values()].every((t) => t.sort().join() === '1,2')).toBe(true);
    expect(turns.size).toBeGreaterThan(CONVERSATIONS * 0.25);
    expect(turns.size).toBeLessThan(CONVERSATIONS * 0.75);
    expect(records.every((r) => r.weight === 2)).toBe(true);
  });

  it('a follow-up\'s score record and examples entry carry the conversation id and its history', async () => {
    const followUp = records.find((r) => r.conversation?.turn === 2)!;
    expect(followUp.conversation!.history).toEqual([{ role: 'user', content: CLOCK_TOWER.query }, { role: 'assistant', content: CLOCK_TOWER.response }]);
    const id = followUp.conversation!.id!;
    const api = (await (await fetch(`${http}/api/examples?conversation=${encodeURIComponent(id)}`)).json()) as { examples: Array<{ record: ScoreRecord }> };
    expect(api.examples.length).toBeGreaterThan(0);
    expect(api.examples.map((e) => e.record.conversation!.turn)).toEqual([...api.examples.map((e) => e.record.conversation!.turn)].sort());
    expect(api.examples.every((e) => e.record.conversation!.id === id)).toBe(true);
    const page = await (await fetch(`${http}/examples?conversation=${encodeURIComponent(id)}`)).text();
    expect(page).toContain('<details class="history"><summary>Turn 2 of conversation');
    expect(page).toContain(CLOCK_TOWER.response);
    expect((await fetch(`${http}/api/examples?conversation=${'x'.repeat(300)}`)).status).toBe(400);
  });

  it('exports the share of conversations with a low answer', async () => {
    const text = await (await fetch(`${http}/metrics`)).text();
    const judged = new Set(records.map((r) => r.conversation!.id)).size;
    expect(metricValue(text, 'ragwatch_conversations', { service: 'rag-demo' })).toBe(judged);
    expect(metricValue(text, 'ragwatch_conversations_flagged_ratio', { service: 'rag-demo' })).toBe(1);
  });
});
