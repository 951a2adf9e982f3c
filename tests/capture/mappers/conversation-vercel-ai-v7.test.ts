/**
 * Conversations on the Vercel AI SDK v7 with the `@ai-sdk/otel` `OpenTelemetry` integration (GenAI
 * spans): a follow-up sent with its `messages` history. The SDK exports no conversation id, so the
 * triplet carries an anonymous conversation: turn 2 with the first exchange as history; `--explain`
 * says it is anonymous. (`conversation-vercel-ai-v7-legacy.test.ts`: the `LegacyOpenTelemetry` one.)
 */
import { OpenTelemetry } from '@ai-sdk/otel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explainLine } from '../../../src/commands/extract.ts';
import type { FakeOpenAI } from '../../fakes/openai-server.ts';
import { triplets, type Harness } from '../helpers/harness.ts';
import { expectFollowUp } from '../helpers/follow-up.ts';
import { vercelFollowUp } from '../helpers/vercel-chat.ts';

let run: { h: Harness; fake: FakeOpenAI } | undefined;
beforeAll(async () => void (run = await vercelFollowUp(() => new OpenTelemetry())));
afterAll(async () => {
  await run?.h.shutdown();
  await run?.fake.close();
});

describe('conversation on ai@7 + @ai-sdk/otel OpenTelemetry', () => {
  it('an anonymous conversation: turn 2, the first exchange as history, no id', () => {
    const [t] = triplets(run!.h.outcomes);
    expectFollowUp(t, 'anonymous');
    expect(Object.keys(t!.conversation!)).toEqual(['turn', 'history']);
    const line = explainLine(run!.h.outcomes.find((o) => o.kind === 'triplet')!);
    expect(line).toContain('conversation<-anonymous (no conversation id exported; history from the input messages)');
    expect(line).toContain('history: turn 2, 2 earlier messages kept; query as typed');
  });
});
