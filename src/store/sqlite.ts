/**
 * Opens an SQLite database through Node's built-in `node:sqlite` (loaded on first use), in WAL mode.
 * Node 22 marks the module experimental and prints a warning on load; that one warning is dropped
 * (it would break every role's clean stderr and JSON logs), every other warning still prints.
 * @module
 */
import type * as NodeSqlite from 'node:sqlite';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';

let sqlite: typeof NodeSqlite | undefined;

/** `node:sqlite`, loaded once without its experimental-feature warning. */
export async function loadSqlite(): Promise<typeof NodeSqlite> {
  if (sqlite) return sqlite;
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if (type === 'ExperimentalWarning' && /SQLite/i.test(String(warning))) return;
    (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    sqlite = await import('node:sqlite');
  } finally {
    process.emitWarning = emit;
  }
  return sqlite;
}

/** Opens (creating) a read-write database file in WAL mode, or `:memory:`. */
export async function openDatabase(path: string): Promise<DatabaseSync> {
  const { DatabaseSync } = await loadSqlite();
  const db = new DatabaseSync(path);
  if (path !== ':memory:') db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 2000');
  return db;
}

/** The embedded store's file: `dataDir`/ragwatch.sqlite (the review store and the exam answers share it). */
export function storeFile(dataDir: string): string {
  return join(resolve(dataDir), 'ragwatch.sqlite');
}

/** Opens the embedded store's file of `dataDir`, creating the directory. */
export async function openStoreDatabase(dataDir: string): Promise<DatabaseSync> {
  mkdirSync(resolve(dataDir), { recursive: true });
  return openDatabase(storeFile(dataDir));
}
