/**
 * The pseudonym key of a single-node deployment, kept in the data directory: made once (32 random
 * bytes, base64url) and read back at every start, so HMAC tokens — conversation ids, `user.id`,
 * `session.id` — mean the same chat and the same user across restarts. The file is created
 * exclusively (two processes starting at once agree on the first) with mode 0600; the key is never logged.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The key's file name in `store.dataDir`. */
export const HMAC_KEY_FILE = 'redaction-hmac.key';

/** Shortest key accepted (the `redaction.hmacKey` bound). */
const MIN_KEY_CHARS = 32;

/** Reads the key of `dataDir`, making it first when there is none. Throws when the directory or file cannot be used. */
export function loadOrCreateHmacKey(dataDir: string): { key: string; file: string; created: boolean } {
  const file = join(dataDir, HMAC_KEY_FILE);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  let created = false;
  try {
    writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
    created = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const key = readFileSync(file, 'utf8').trim();
  if (key.length < MIN_KEY_CHARS) throw new Error(`${file} holds a key of ${key.length} characters; at least ${MIN_KEY_CHARS} are needed (delete the file to make a new one: pseudonyms then change)`);
  if (created) chmodSync(file, 0o600);
  return { key, file, created };
}
