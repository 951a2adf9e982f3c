import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { EmbeddedJudge } from '../../src/judges/embedded/embedded-judge.ts';
import { LlmJudge } from '../../src/judges/llm/llm-judge.ts';
import { createJudge } from '../../src/judges/create.ts';

describe('judge kind resolution (DESIGN §8: embedded unless an LLM endpoint is configured)', () => {
  it('defaults to the embedded judge', () => {
    const config = loadConfig({ env: {} });
    expect(config.judge.kind).toBe('embedded');
    expect(createJudge(config)).toBeInstanceOf(EmbeddedJudge);
  });

  it('uses the LLM judge when OPENAI_BASE_URL or OPENAI_API_KEY is set', () => {
    const a = loadConfig({ env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', RAGWATCH_JUDGE_MODEL: 'm' } });
    expect(a.judge.kind).toBe('llm');
    const j = createJudge(a);
    expect(j).toBeInstanceOf(LlmJudge);
    expect(j.model).toBe('m');
    expect(loadConfig({ env: { OPENAI_API_KEY: 'sk-x' } }).judge.kind).toBe('llm');
  });

  it('an explicit kind wins', () => {
    expect(loadConfig({ env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', RAGWATCH_JUDGE: 'embedded' } }).judge.kind).toBe('embedded');
  });

  it('rejects bad judge values naming the key', () => {
    expect(() => loadConfig({ env: {}, overrides: { judge: { llm: { maxRetries: -1 } } } })).toThrow(/judge\.llm\.maxRetries/);
  });
});
