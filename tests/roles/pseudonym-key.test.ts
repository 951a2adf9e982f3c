/**
 * Stable pseudonyms (issue 38): with no `redaction.hmacKey`, `ragwatch start` makes a key once in the
 * data directory (mode 0600, never logged) and the same chat keeps the same conversation id — and
 * `session.id` / `user.id` the same tokens — across a restart; a collector of split mode refuses to
 * start without a shared key, naming it; a configured key wins; the collector's span records carry
 * the same tokens `ragwatch start` gives under the same key, and no raw identifier.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PolicyRedactor } from '../../src/capture/redaction/policy-redactor.ts';
import { CONVERSATION_ATTRIBUTES } from '../../src/capture/conversation.ts';
import { loadConfig } from '../../src/config/load.ts';
import { ConfigError } from '../../src/errors.ts';
import { createLogger, silentLogger } from '../../src/log.ts';
import { withPseudonymKey } from '../../src/roles/pseudonym-key.ts';
import { startApp } from '../../src/roles/start.ts';
import { HMAC_KEY_FILE, loadOrCreateHmacKey } from '../../src/store/hmac-key.ts';
import type { SampledTriplet } from '../../src/triplet.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';
import { CLOCK_TOWER, openInferenceTrace, postOtlp } from '../helpers/otlp.ts';
import { waitFor } from '../helpers/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-pseudonyms-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One chat turn of session `chat-7f3a9c` by user `alice-42` through a fresh `ragwatch start` on `dataDir`; its triplet. */
async function oneTurn(dataDir: string): Promise<SampledTriplet> {
  const config = loadConfig({ env: {}, overrides: { server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0 }, store: { dataDir }, metrics: { processMetrics: false }, capture: { traceIdleMs: 100 } } });
  const app = await startApp(config, silentLogger, { judge: new LexicalJudge() });
  try {
    const got: SampledTriplet[] = [];
    app.pipeline.sinks.add({ onRecord: (_r, t) => void (t && got.push(t)) });
    const { body } = openInferenceTrace({ ...CLOCK_TOWER, sessionId: 'chat-7f3a9c' });
    // user.id on the LLM span, as instrumentations set it.
    const spans = (body as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ attributes: unknown[] }> }> }> }).resourceSpans[0]!.scopeSpans[0]!.spans;
    for (const s of spans) s.attributes.push({ key: 'user.id', value: { stringValue: 'alice-42' } });
    expect((await postOtlp(`http://127.0.0.1:${app.otlp.port}/v1/traces`, JSON.stringify(body))).status).toBe(200);
    await waitFor(() => got.length > 0, 15_000);
    return got[0]!;
  } finally {
    await app.shutdown();
  }
}

describe('pseudonym key', () => {
  it('ragwatch start keeps a chat\'s conversation id across a restart with no key configured (the key made once in the data directory, 0600)', async () => {
    const dataDir = join(dir, 'start');
    const before = await oneTurn(dataDir);
    const file = join(dataDir, HMAC_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const after = await oneTurn(dataDir);
    expect(before.conversation?.id).toMatch(/^k1_[0-9a-f]{12}$/);
    expect(after.conversation?.id).toBe(before.conversation?.id);
    expect(JSON.stringify(before)).not.toContain('chat-7f3a9c');
    // Another data directory, another key: other tokens (the key, not the process, makes them).
    expect((await oneTurn(join(dir, 'other'))).conversation?.id).not.toBe(before.conversation?.id);
  }, 60_000);

  it('never logs the key', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (s: string) => void lines.push(s) } as never);
    const config = withPseudonymKey(loadConfig({ env: {}, overrides: { store: { dataDir: join(dir, 'logged') } } }), 'start', logger);
    expect(config.redaction.hmacKey).toBe(readFileSync(join(dir, 'logged', HMAC_KEY_FILE), 'utf8').trim());
    expect(lines.join('')).toContain('pseudonym key created in the data directory');
    expect(lines.join('')).not.toContain(config.redaction.hmacKey!);
    expect(loadOrCreateHmacKey(join(dir, 'logged'))).toMatchObject({ key: config.redaction.hmacKey, created: false });
  });

  it('a collector refuses to start without a shared key, naming it; a configured key wins everywhere', () => {
    const config = loadConfig({ env: {}, overrides: { store: { dataDir: join(dir, 'collector') } } });
    let err: unknown;
    try {
      withPseudonymKey(config, 'collector', silentLogger);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toContain('redaction.hmacKey');
    expect((err as ConfigError).message).toContain('RAGWATCH_REDACTION_HMAC_KEY');
    const keyed = loadConfig({ env: { RAGWATCH_REDACTION_HMAC_KEY: 'a-shared-key-of-at-least-32-characters!' }, overrides: { store: { dataDir: join(dir, 'never') } } });
    expect(withPseudonymKey(keyed, 'collector', silentLogger)).toBe(keyed);
    expect(withPseudonymKey(keyed, 'start', silentLogger)).toBe(keyed);
  });

  it('a collector\'s span attributes carry the tokens a triplet of ragwatch start gets under the same key, and no raw identifier', () => {
    const config = loadConfig({ env: { RAGWATCH_REDACTION_HMAC_KEY: 'a-shared-key-of-at-least-32-characters!' } });
    const redactor = new PolicyRedactor(config.redaction);
    const attrs = { 'session.id': 'sess-9911', 'user.id': 'alice-42', 'gen_ai.conversation.id': 'conv-5', 'llm.model_name': 'gpt-4o-mini' };
    const out = redactor.pseudonymiseAttributes(attrs, [...CONVERSATION_ATTRIBUTES]);
    expect(JSON.stringify(out)).not.toMatch(/sess-9911|alice-42|conv-5/);
    expect(out['llm.model_name']).toBe('gpt-4o-mini');
    // The triplet ragwatch start makes from the raw values, under the same key.
    const triplet = { id: 't', traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), service: 's', timestamp: '', query: 'q', sources: [], response: 'r', latency: { durationMs: 1 }, convention: 'custom' as const, attributes: { 'session.id': 'sess-9911', 'user.id': 'alice-42' }, conversation: { id: 'sess-9911', turn: 1, history: [] } };
    const start = redactor.redact(triplet);
    if (!start.ok) throw new Error('not redacted');
    expect(out['session.id']).toBe(start.triplet.attributes!['session.id']);
    expect(out['user.id']).toBe(start.triplet.attributes!['user.id']);
    // session.id has priority over gen_ai.conversation.id: the conversation token is the start one.
    expect(out['ragwatch.conversation.id']).toBe(start.triplet.conversation!.id);
    // The assembler (policy applied upstream) passes the tokens through, never hashes them again.
    const assembler = new PolicyRedactor(config.redaction, { textRedacted: true });
    const passed = assembler.redact({ ...triplet, attributes: { 'session.id': String(out['session.id']) }, conversation: { id: String(out['ragwatch.conversation.id']), turn: 1, history: [] } });
    if (!passed.ok) throw new Error('not redacted');
    expect(passed.triplet.conversation!.id).toBe(start.triplet.conversation!.id);
    expect(passed.triplet.attributes!['session.id']).toBe(start.triplet.attributes!['session.id']);
  });
});
