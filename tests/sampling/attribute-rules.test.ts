/**
 * Sampling rules on attributes and on negative feedback through the real capture path: OTLP/JSON
 * spans → decode → Pipeline (capture fills `Triplet.attributes` with what the rules name, redaction
 * pseudonymises identifiers) → the configured RulesSampler → scored. Before capture filled
 * `attributes`, every rule here matched nothing and no triplet was scored (rate 0).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pseudonymousSpan } from '../../src/assembly/span-forwarder.ts';
import { fromSpanRecord, parseTraceBatch, toSpanRecord, type TraceBatch } from '../../src/assembly/span-record.ts';
import { decodeTraces } from '../../src/capture/otlp/decode.ts';
import { createRedactor, redactionForPipeline } from '../../src/capture/redaction/redact-outcome.ts';
import type { CapturedSpan } from '../../src/capture/types.ts';
import { samplingAttributeKeys } from '../../src/config/sampling-attributes.ts';
import { loadConfig } from '../../src/config/load.ts';
import { valueRulesOf } from '../../src/feedback/values.ts';
import { feedbackOfSpan } from '../../src/feedback/span-feedback.ts';
import type { Judge } from '../../src/judges/types.ts';
import { Pipeline } from '../../src/roles/pipeline.ts';
import type { RagwatchConfigInput } from '../../src/config/schema.ts';
import type { SampledTriplet, Triplet } from '../../src/triplet.ts';
import { CLOCK_TOWER, openInferenceTrace, type RagRequest } from '../helpers/otlp.ts';

const KEY = 'sampling-attributes-test-key-0123456789';

/** A judge that scores nothing: these tests look at which triplets reach it. */
const stubJudge = (): Judge => ({
  kind: 'embedded',
  ready: true,
  init: () => Promise.resolve(),
  score: () => Promise.resolve({ ok: true, scores: {}, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } }),
  shutdown: () => Promise.resolve(),
});

let pipeline: Pipeline | undefined;
afterEach(async () => {
  await pipeline?.shutdown(1_000);
  pipeline = undefined;
});

const spansOf = (req: RagRequest): CapturedSpan[] => decodeTraces(Buffer.from(JSON.stringify(openInferenceTrace(req).body)), 'application/json').spans;

/**
 * Split mode: what a collector sends on the spans topic (identifiers pseudonymised, text redacted,
 * the resource attributes sampling reads kept), read back as an assembler reads it.
 */
function viaSpanRecords(config: ReturnType<typeof loadConfig>, spans: CapturedSpan[]): CapturedSpan[] {
  const redactor = createRedactor(redactionForPipeline(config));
  const keys = samplingAttributeKeys(config);
  const traceId = spans[0]!.traceId;
  const r = redactor.redactWith((f): TraceBatch => ({ traceId, spans: spans.map((s) => toSpanRecord(pseudonymousSpan(s, redactor, [], keys), f, keys)), logs: [] }));
  if (!r.ok) throw new Error('redaction failed');
  const wire = JSON.stringify(r.value);
  expect(wire).not.toContain('acme');
  const batch = parseTraceBatch(wire);
  if (typeof batch === 'string') throw new Error(batch);
  return batch.spans.map((s) => fromSpanRecord(traceId, s));
}

/** Runs requests through a pipeline sampling at rate 0 plus `sampling`: what was scored, and every captured triplet, by trace id. */
async function run(overrides: RagwatchConfigInput, requests: RagRequest[], split = false): Promise<{ scored: Map<string, SampledTriplet>; captured: Map<string, Triplet>; config: ReturnType<typeof loadConfig> }> {
  const config = loadConfig({ env: {}, overrides: { ...overrides, redaction: { hmacKey: KEY }, capture: { traceIdleMs: 60_000 } } });
  const scored = new Map<string, SampledTriplet>();
  const captured = new Map<string, Triplet>();
  pipeline = new Pipeline({
    config,
    judge: stubJudge(),
    onRecord: (_record, triplet) => void scored.set(triplet.traceId, triplet),
    onOutcome: (o) => void (o.kind === 'triplet' && captured.set(o.triplet.traceId, o.triplet)),
    // An assembler's capture: the collectors redacted and pseudonymised the records already.
    spansRedacted: split,
  });
  await pipeline.start();
  for (const req of requests) pipeline.ingestSpans(split ? viaSpanRecords(config, spansOf(req)) : spansOf(req), split ? 'kafka' : 'otlp');
  await pipeline.forceFlush();
  return { scored, captured, config };
}

const trace = (n: number, extra: Partial<RagRequest>): RagRequest => ({ ...CLOCK_TOWER, traceId: n.toString(16).padStart(32, '0'), ...extra });

describe('sampling rules on attributes, through capture', () => {
  it('match attributes found on the generation span, its ancestors or the resource, the nearest winning; identifiers by their pseudonym', async () => {
    const sampling = { rate: 0, rules: [{ name: 'acme-gold', action: 'in' as const, match: { attributes: { 'tenant.id': 'acme', plan: 'gold' } } }] };
    const { scored, captured } = await run({ sampling }, [
      // tenant on the resource, plan on the root (request) span: both found.
      trace(1, { resourceAttributes: { 'tenant.id': 'acme' }, rootAttributes: { plan: 'gold' } }),
      // the LLM span says silver: the nearest holder wins over the root's gold.
      trace(2, { resourceAttributes: { 'tenant.id': 'acme' }, rootAttributes: { plan: 'gold' }, llmAttributes: { plan: 'silver' } }),
      // another tenant.
      trace(3, { resourceAttributes: { 'tenant.id': 'globex' }, rootAttributes: { plan: 'gold' } }),
      // the identifier on the LLM span itself, gold on the root.
      trace(4, { llmAttributes: { 'tenant.id': 'acme' }, rootAttributes: { plan: 'gold' } }),
      // no attributes at all.
      trace(5, {}),
    ]);
    expect([...scored.keys()].map((id) => Number.parseInt(id, 16)).sort()).toEqual([1, 4]);
    for (const t of scored.values()) expect(t.sampling).toMatchObject({ rule: 'acme-gold', weight: 1 });
    const first = captured.get(trace(1, {}).traceId!)!;
    // The raw identifier never leaves capture: the triplet carries its pseudonym.
    expect(first.attributes).toEqual({ 'tenant.id': expect.stringMatching(/^k1_[0-9a-f]{12}$/), plan: 'gold' });
    expect(JSON.stringify([...captured.values()])).not.toContain('acme');
    expect(captured.get(trace(2, {}).traceId!)!.attributes).toMatchObject({ plan: 'silver' });
    expect(captured.get(trace(5, {}).traceId!)!.attributes).toBeUndefined();
  });

  it('split mode: an assembler matches the same rules on what collectors send (pseudonyms, resource attributes)', async () => {
    const sampling = { rate: 0, rules: [{ name: 'acme-gold', action: 'in' as const, match: { attributes: { 'tenant.id': 'acme', plan: 'gold' } } }] };
    const requests = [trace(10, { resourceAttributes: { 'tenant.id': 'acme' }, rootAttributes: { plan: 'gold' } }), trace(11, { resourceAttributes: { 'tenant.id': 'globex' }, rootAttributes: { plan: 'gold' } })];
    const local = await run({ sampling }, requests);
    await pipeline?.shutdown(1_000);
    const split = await run({ sampling }, requests, true);
    expect([...split.scored.keys()].map((id) => Number.parseInt(id, 16))).toEqual([10]);
    // The same pseudonym as a local capture's under the same key.
    expect(split.captured.get(trace(10, {}).traceId!)!.attributes).toEqual(local.captured.get(trace(10, {}).traceId!)!.attributes);
  });

  it('copies only the attributes the configuration names, and no value too long to match', async () => {
    const sampling = { rate: 0, rules: [{ name: 'r', action: 'in' as const, match: { attributes: { plan: 'gold' } } }], strata: { by: 'attribute' as const, attribute: 'region', rates: { eu: 1 } } };
    const { scored, captured } = await run({ sampling }, [
      trace(6, { rootAttributes: { plan: 'x'.repeat(300), region: 'eu', secret: 'do-not-copy' } }),
      trace(7, { rootAttributes: { region: 'us' } }),
    ]);
    expect(captured.get(trace(6, {}).traceId!)!.attributes).toEqual({ region: 'eu' });
    // The stratum by attribute works too: eu at rate 1, us in `other` at rate 0.
    expect([...scored.values()].map((t) => [Number.parseInt(t.traceId, 16), t.sampling.stratum])).toEqual([[6, 'eu']]);
  });

  it('strata by a pseudonymised attribute keep the configured value as the stratum', async () => {
    const sampling = { rate: 0, strata: { by: 'attribute' as const, attribute: 'tenant.id', rates: { acme: 1 } } };
    const { scored } = await run({ sampling }, [trace(8, { resourceAttributes: { 'tenant.id': 'acme' } }), trace(9, { resourceAttributes: { 'tenant.id': 'globex' } })]);
    expect([...scored.values()].map((t) => [Number.parseInt(t.traceId, 16), t.sampling.stratum])).toEqual([[8, 'acme']]);
  });
});

describe('negativeFeedback rules, through capture', () => {
  const sampling = { rate: 0, rules: [{ name: 'unhappy', action: 'in' as const, match: { negativeFeedback: true } }] };

  it('read feedback as the feedback section does: its thumbs and rating attributes and values', async () => {
    const requests = [
      trace(16, { rootAttributes: { 'user.feedback': 'thumbs_down' } }),
      // Case-insensitive, as ragwatch_feedback_total counts it.
      trace(17, { rootAttributes: { 'rag.feedback': 'Dislike' } }),
      trace(18, { llmAttributes: { 'user.rating': 1 } }),
      // A rating decides before thumbs (as the feedback capability reads a span): 5 is positive.
      trace(19, { rootAttributes: { 'user.rating': 5, 'user.feedback': 'thumbs_down' } }),
      trace(20, { rootAttributes: { 'user.feedback': 'thumbs_up' } }),
      trace(21, {}),
    ];
    const { scored, captured, config } = await run({ sampling, feedback: { negativeValues: ['negative', 'thumbs_down', 'dislike', 0] } }, requests);
    expect([...scored.keys()].map((id) => Number.parseInt(id, 16)).sort((a, b) => a - b)).toEqual([16, 17, 18]);
    for (const t of scored.values()) expect(t.sampling.rule).toBe('unhappy');
    expect(captured.get(trace(19, {}).traceId!)!.attributes).toEqual({ 'user.rating': 5, 'user.feedback': 'thumbs_down' });
    // One notion of feedback: the feedback capability reads the same spans with the same polarity.
    const rules = valueRulesOf(config.feedback);
    const polarities = requests.map((req) => spansOf(req).flatMap((span) => feedbackOfSpan(span, config.feedback.spans, rules)).map((f) => f.polarity));
    expect(polarities).toEqual([['negative'], ['negative'], ['negative'], ['positive'], ['positive'], []]);
  });

  it('a config still carrying sampling.feedback is refused, naming what replaced it', () => {
    expect(() => loadConfig({ env: {}, overrides: { sampling: { feedback: { attribute: 'x' } } } as RagwatchConfigInput })).toThrow(/sampling\.feedback.*replaced by the feedback section/);
  });

  it('too many attributes for capture to copy are refused at load', () => {
    const attributes = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`a${i}`, 'v']));
    expect(() => loadConfig({ env: {}, overrides: { sampling: { rules: [{ action: 'in', match: { attributes } }] } } })).toThrow(/sampling reads 65 attributes.*at most 64/);
  });
});
