/**
 * `ragwatch extract` on OTLP export files written from real AI SDK v6 spans (JSON and protobuf),
 * run as a child process: one Triplet per line on stdout, `--explain` on stderr, no server.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { streamText } from 'ai-v6';
import { createOpenAI } from 'ai-sdk-openai-v3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tripletSchema } from '../../src/triplet.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.ts';
import { RAG, RAG_REPLY, contextBlock, startHarness, type Harness } from '../capture/helpers/harness.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'ragwatch-extract-'));
const configFile = join(dir, 'ragwatch.yaml');
let fake: FakeOpenAI;
let h: Harness;

function extract(...args: string[]) {
  return run(process.execPath, ['bin/ragwatch.js', 'extract', ...args], { env: { ...process.env, RAGWATCH_CONFIG: '' }, timeout: 30_000 });
}

beforeAll(async () => {
  fake = await startFakeOpenAI(() => RAG_REPLY);
  h = startHarness();
  const openai = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' });
  for (const prompt of [`Context:\n${contextBlock()}\n\nQuestion: ${RAG.query}`, RAG.query]) {
    const r = streamText({ model: openai.chat('gpt-4o-mini'), prompt, experimental_telemetry: { isEnabled: true } });
    for await (const _ of r.textStream);
  }
  await h.flush();
  const spans = h.spans.getFinishedSpans();
  writeFileSync(join(dir, 'trace.json'), JsonTraceSerializer.serializeRequest(spans)!);
  writeFileSync(join(dir, 'trace.pb'), ProtobufTraceSerializer.serializeRequest(spans)!);
  writeFileSync(configFile, 'capture:\n  custom:\n    promptContextPattern: "Context:\\\\n(?<context>[\\\\s\\\\S]*?)\\\\n\\\\nQuestion:"\n    promptQueryPattern: "Question:\\\\s*(?<query>.+)$"\n');
});

afterAll(async () => {
  await h.shutdown();
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ragwatch extract', () => {
  it('prints one valid Triplet JSON per line for a JSON and a protobuf export', async () => {
    for (const file of ['trace.json', 'trace.pb']) {
      const { stdout } = await extract('-c', configFile, join(dir, file));
      const lines = stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      const t = tripletSchema.parse(JSON.parse(lines[0]!));
      expect(t.query).toBe(RAG.query);
      expect(t.sources).toEqual(RAG.docs.map((d) => ({ id: d.id, content: d.content })));
      expect(t.response).toBe(RAG.answer);
      expect(t.convention).toBe('vercel-ai');
      expect(t.latency.ttftMs).toBeGreaterThanOrEqual(RAG.firstChunkDelayMs - 5);
    }
  });

  it('--explain says which mapper matched, where fields came from, and what was missing', async () => {
    const { stdout, stderr } = await extract('--explain', '-c', configFile, join(dir, 'trace.json'));
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^triplet {4}trace=[0-9a-f]{32} span=[0-9a-f]{16} "ai\.streamText\.doStream" mapper=vercel-ai\n {4}query<-prompt pattern\n {4}sources<-prompt pattern/m);
    expect(stderr).toMatch(/^incomplete trace=[0-9a-f]{32} span=[0-9a-f]{16} "ai\.streamText\.doStream" mapper=vercel-ai\n {4}missing=sources\n/m);
    expect(stderr).toMatch(/2 generation span\(s\): 1 triplet\(s\), 1 incomplete/);
  });

  it('rejects an unknown file type with exit code 2', async () => {
    await expect(extract(join(dir, 'ragwatch.yaml'))).rejects.toMatchObject({ code: 2 });
  });
});
