import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.ts';

describe('logger', () => {
  it('censors text and credential fields even when a caller logs them by mistake', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) });
    const logger = createLogger('info', sink);
    logger.info({ triplet: { query: 'jane@example.com' }, query: 'card 4111 1111 1111 1111', judge: { apiKey: 'sk-secret-value-123456789012' }, n: 3 }, 'oops');
    const out = lines.join('');
    expect(out).not.toContain('jane@example.com');
    expect(out).not.toContain('4111');
    expect(out).not.toContain('sk-secret');
    expect(JSON.parse(out)).toMatchObject({ n: 3, query: '[redacted]', triplet: '[redacted]', judge: { apiKey: '[redacted]' } });
  });
});
