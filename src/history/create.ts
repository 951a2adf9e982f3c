/**
 * Opens the history of a role that sees every score record (`ragwatch start`, `ragwatch slices`) in the
 * embedded store's file (`store.dataDir`/ragwatch.sqlite, its own connection). A store that cannot be
 * opened is logged and left out: scoring goes on, the charts say there is no history.
 * @module
 */
import type { Registry } from 'prom-client';
import type { RagwatchConfig } from '../config/schema.ts';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { MetricRegistry } from '../metric-registry.ts';
import { requireDurationMs } from '../metrics/duration.ts';
import { openStoreDatabase, storeFile } from '../store/sqlite.ts';
import type { ScoreRecord } from '../triplet.ts';
import { HistorySink } from './sink.ts';
import { HistoryStore } from './store.ts';
import { HistoryReader } from './view.ts';

/** An open history: the sink to register with the scorer (and the notifier), and what the pages read. */
export interface History {
  sink: HistorySink;
  view: HistoryReader;
  /** Starts the write and maintenance timers. */
  start(): void;
  /** Writes what is pending and closes the database. Idempotent. */
  shutdown(): Promise<void>;
}

/** What the role gives the history besides the configuration. */
export interface HistoryWiring {
  registry?: Registry;
  logger?: Logger;
  /** The bounded service label of a record (the metrics consumer's). */
  serviceOf?: (record: ScoreRecord) => string;
  /** Alert threshold by metric (flagged answers, the chart's line). */
  thresholds?: () => Readonly<Record<string, number>>;
  /** The configuration's metrics: scores of others are counted and not kept. Default: every metric. */
  metrics?: Pick<MetricRegistry, 'has'>;
  now?: () => number;
}

/** Opens the history of `config.history` over an open store (tests, backtests), wired to the sink and reader. */
export function historyOver(store: HistoryStore, history: RagwatchConfig['history'], wiring: Omit<HistoryWiring, 'logger'> = {}): History {
  const now = wiring.now ? { now: wiring.now } : {};
  const sink = new HistorySink({
    store,
    maxSeries: history.maxSeries,
    maxReleasesPerService: history.maxReleasesPerService,
    flushIntervalMs: history.flushIntervalMs,
    ...(wiring.thresholds ? { thresholds: wiring.thresholds } : {}),
    ...(wiring.serviceOf ? { serviceOf: wiring.serviceOf } : {}),
    ...(wiring.metrics ? { knows: (metric: string) => wiring.metrics!.has(metric) } : {}),
    ...(wiring.registry ? { registry: wiring.registry } : {}),
    ...now,
  });
  const view = new HistoryReader({ store, flush: () => sink.flush(), bandWindowMs: requireDurationMs(history.bandWindow), ...(wiring.thresholds ? { thresholds: wiring.thresholds } : {}), ...now });
  let stopping: Promise<void> | undefined;
  return {
    sink,
    view,
    start: () => sink.start(),
    shutdown: () =>
      (stopping ??= (async () => {
        await sink.shutdown();
        store.close();
      })()),
  };
}

/** The history of `config.history`, or undefined when disabled or when the store cannot be opened (logged). */
export async function openHistory(config: RagwatchConfig, wiring: HistoryWiring = {}): Promise<History | undefined> {
  const h = config.history;
  if (!h.enabled) return undefined;
  const file = storeFile(config.store.dataDir);
  try {
    const store = new HistoryStore({
      db: await openStoreDatabase(config.store.dataDir),
      retentionMs: requireDurationMs(h.retention),
      fineRetentionMs: requireDurationMs(h.fineRetention),
      coarseStepMs: requireDurationMs(h.coarseStep),
      maxRows: h.maxRows,
      maxFirings: h.maxFirings,
      ...(wiring.registry ? { registry: wiring.registry } : {}),
      ...(wiring.now ? { now: wiring.now } : {}),
    });
    wiring.logger?.info({ store: file, retention: h.retention }, 'history open');
    return historyOver(store, h, wiring);
  } catch (err) {
    wiring.logger?.error({ store: file, err: errorMessage(err) }, 'history unavailable (config key "store.dataDir", env RAGWATCH_DATA_DIR): the charts show no history');
    return undefined;
  }
}
