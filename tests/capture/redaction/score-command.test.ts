/** `ragwatch score FILE.jsonl` redacts triplets read from a file before the judge endpoint sees them. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { scoreCommand } from '../../../src/commands/score.ts';
import { scoreRecordSchema, type SampledTriplet } from '../../../src/triplet.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.ts';
import { oracleResponder } from '../../judges/helpers/oracle.ts';

let dir: string;
let fake: FakeOpenAI;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ragwatch-score-redaction-'));
  fake = await startFakeOpenAI(oracleResponder());
});
afterAll(async () => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
  rmSync(dir, { recursive: true, force: true });
  await fake.close();
});

const EMAIL = 'maria.lopez@example.com';
const CARD = '4111 1111 1111 1111';

describe('ragwatch score redacts before judging', () => {
  it('no raw PII reaches the judge; the record is still produced', async () => {
    const t: SampledTriplet = {
      id: 't1', traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), service: 'svc', timestamp: new Date(0).toISOString(),
      query: `I am ${EMAIL}. When was the Chimnabai Clock Tower completed?`,
      sources: [{ content: `The Chimnabai Clock Tower was completed in 1896. Billing card on file: ${CARD}.` }],
      response: 'The Chimnabai Clock Tower was completed in 1896.',
      latency: { durationMs: 1 }, convention: 'openinference', sampling: { weight: 1, stratum: 'offline', rule: 'offline' },
    };
    const file = join(dir, 'in.jsonl');
    writeFileSync(file, `${JSON.stringify(t)}\n`);
    const config = join(dir, 'ragwatch.yaml');
    writeFileSync(config, `judge:\n  baseUrl: ${fake.baseURL}\n  apiKey: test\n  model: judge-model\n`);
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    await scoreCommand.run([file, '-c', config]);
    vi.restoreAllMocks();
    const record = scoreRecordSchema.parse(JSON.parse(out.join('').trim()));
    expect(record.tripletId).toBe('t1');
    const bodies = fake.requests.map((r) => JSON.stringify(r.body)).join('\n');
    expect(fake.requests.length).toBeGreaterThan(0);
    expect(bodies).not.toContain(EMAIL);
    expect(bodies).not.toContain(CARD);
    expect(bodies).toContain('<EMAIL_1>');
  });
});
