import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HistorySink } from '../../src/history/sink.ts';
import { HistoryStore } from '../../src/history/store.ts';
import { openDatabase } from '../../src/store/sqlite.ts';
import { MIN, T0, metricValue, record } from './fixtures.ts';

describe('history sink on the scoring path', () => {
  it('never throws into the scorer: a failing callback is counted, the next record is kept', async () => {
    const registry = new Registry();
    const store = new HistoryStore({ db: await openDatabase(':memory:'), now: () => T0 + MIN });
    let fail = true;
    const sink = new HistorySink({ store, registry, now: () => T0 + MIN, serviceOf: (r) => {
      if (fail) throw new Error('boom');
      return r.service;
    } });
    expect(() => sink.onRecord(record(T0, { groundedness: 0.5 }))).not.toThrow();
    expect(await metricValue(registry, 'ragwatch_history_dropped_total', { reason: 'error' })).toBe(1);
    fail = false;
    sink.onRecord(record(T0, { groundedness: 0.5 }));
    sink.flush();
    expect(store.rowCount()).toBe(1);
    await sink.shutdown();
    store.close();
  });

  it('holds at most maxPending unwritten minutes, counting the rest', async () => {
    const registry = new Registry();
    const store = new HistoryStore({ db: await openDatabase(':memory:'), now: () => T0 + 60 * MIN });
    const sink = new HistorySink({ store, registry, maxPending: 5, now: () => T0 + 60 * MIN });
    for (let m = 0; m < 8; m++) sink.onRecord(record(T0 + m * MIN, { groundedness: 0.5 }));
    expect(await metricValue(registry, 'ragwatch_history_dropped_total', { reason: 'pending_full' })).toBe(3);
    sink.flush();
    expect(store.rowCount()).toBe(5);
    await sink.shutdown();
    store.close();
  });
});
