/** Score records and an open history on a simulated clock, for the history tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { defaultConfig } from '../../src/config/load.ts';
import type { RagwatchConfig } from '../../src/config/schema.ts';
import { historyOver, type History } from '../../src/history/create.ts';
import { HistoryStore } from '../../src/history/store.ts';
import { openDatabase } from '../../src/store/sqlite.ts';
import { requireDurationMs } from '../../src/metrics/duration.ts';
import type { ScoreRecord } from '../../src/triplet.ts';

/** 2026-03-02T00:00:00Z: a Monday, a whole day, a whole 10 minutes. */
export const T0 = Date.UTC(2026, 2, 2);
export const MIN = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

/** A score record at `ms` with these scores. */
export function record(ms: number, scores: Record<string, number>, extra: Partial<ScoreRecord> = {}): ScoreRecord {
  return { tripletId: `t${ms}`, traceId: 'a'.repeat(32), service: 'rag', stratum: 's', weight: 1, timestamp: new Date(ms).toISOString(), judge: { kind: 'embedded' }, scores: scores as ScoreRecord['scores'], skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 }, ...extra };
}

/** A history over a database file in a fresh directory, on the clock `now()`. */
export interface HistoryHarness {
  history: History;
  store: HistoryStore;
  registry: Registry;
  file: string;
  clock: { ms: number };
  /** Closes this history and opens the same file again (a restart). */
  reopen(): Promise<HistoryHarness>;
  /** Closes and deletes the directory. */
  cleanup(): Promise<void>;
}

/** Opens a history over `dir`/h.sqlite with `config.history` (overrides merged), thresholds `thresholds`. */
export async function openHarness(overrides: Partial<RagwatchConfig['history']> = {}, thresholds: Record<string, number> = { groundedness: 0.7 }, dir = mkdtempSync(join(tmpdir(), 'ragwatch-history-')), clock = { ms: T0 }): Promise<HistoryHarness> {
  const h = { ...defaultConfig().history, ...overrides };
  const file = join(dir, 'h.sqlite');
  const registry = new Registry();
  const now = () => clock.ms;
  const store = new HistoryStore({ db: await openDatabase(file), retentionMs: requireDurationMs(h.retention), fineRetentionMs: requireDurationMs(h.fineRetention), coarseStepMs: requireDurationMs(h.coarseStep), maxRows: h.maxRows, maxFirings: h.maxFirings, registry, now });
  const history = historyOver(store, h, { registry, now, thresholds: () => thresholds });
  return {
    history,
    store,
    registry,
    file,
    clock,
    reopen: async () => {
      await history.shutdown();
      return openHarness(overrides, thresholds, dir, clock);
    },
    cleanup: async () => {
      await history.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Hands `r` to the history's sink with the clock moved on to the record's time (answers arrive as they are scored). */
export function feed(h: HistoryHarness, r: ScoreRecord): void {
  h.clock.ms = Math.max(h.clock.ms, Date.parse(r.timestamp));
  h.history.sink.onRecord(r);
}

/** The value of a counter or gauge with these labels on `registry` (0 when absent). */
export async function metricValue(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const values = (await registry.getSingleMetric(name)?.get())?.values ?? [];
  return values.filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x)).reduce((a, v) => a + v.value, 0);
}
