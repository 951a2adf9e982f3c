/**
 * Which key pseudonymises identifiers (DESIGN §20): `redaction.hmacKey` when configured (the chart's
 * Secret, shared by every replica); otherwise, in a single process, the key kept in the data
 * directory (`store/hmac-key.ts`), so tokens survive restarts. A collector of split mode without a
 * configured key is refused: each replica would draw its own, and a chat's turns — sampled by their
 * pseudonymous conversation id — would be split between sampling decisions.
 * @module
 */
import type { RagwatchConfig } from '../config/schema.ts';
import { ConfigError, errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import { loadOrCreateHmacKey } from '../store/hmac-key.ts';

/** The configuration with its pseudonym key resolved for a process of `role`. */
export function withPseudonymKey(config: RagwatchConfig, role: 'start' | 'collector', logger: Logger): RagwatchConfig {
  const r = config.redaction;
  if (!r.enabled || r.hmacKey !== undefined) return config;
  if (role === 'collector') {
    throw new ConfigError(
      'config key "redaction.hmacKey" (env RAGWATCH_REDACTION_HMAC_KEY): split mode needs one key, at least 32 characters, shared by every collector — identifiers are pseudonymised before span records leave a collector, and a key per replica would give one user or chat different tokens (the Helm chart makes a Secret for it)',
      ['redaction.hmacKey'],
    );
  }
  try {
    const { key, file, created } = loadOrCreateHmacKey(config.store.dataDir);
    logger.info({ file, keyId: r.hmacKeyId }, created ? 'pseudonym key created in the data directory (keep it: pseudonyms change with it)' : 'pseudonym key loaded from the data directory');
    return { ...config, redaction: { ...r, hmacKey: key } };
  } catch (err) {
    logger.warn({ dataDir: config.store.dataDir, err: errorMessage(err) }, 'pseudonym key not kept (config key "store.dataDir", env RAGWATCH_DATA_DIR): a per-process key is used, tokens change at restart — set redaction.hmacKey');
    return config;
  }
}
