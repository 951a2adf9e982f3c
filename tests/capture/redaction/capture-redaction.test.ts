/** Redaction inside the real capture stage: OTLP/JSON in, only redacted triplets out. */
import { afterEach, describe, expect, it } from 'vitest';
import { Capture } from '../../../src/capture/capture.ts';
import { decodeTraceRequest } from '../../../src/capture/otlp/traces.ts';
import type { GenerationOutcome } from '../../../src/capture/types.ts';
import { defaultConfig } from '../../../src/config/load.ts';
import { redactionSection } from '../../../src/config/sections/redaction.ts';
import { createInstruments } from '../../../src/telemetry/instruments.ts';
import type { Triplet } from '../../../src/triplet.ts';
import { openInferenceTrace } from '../../helpers/otlp.ts';

const CANARIES = ['maria.lopez@example.com', '4111 1111 1111 1111', 'GB82 WEST 1234 5698 7654 32', '+44 20 7946 0958', '198.51.100.23'];

let capture: Capture | undefined;
afterEach(async () => {
  await capture?.shutdown();
  capture = undefined;
});

async function run(redaction = redactionSection.parse({})) {
  const instruments = createInstruments({ processMetrics: false });
  const triplets: Triplet[] = [];
  const outcomes: GenerationOutcome[] = [];
  capture = new Capture({ config: defaultConfig().capture, instruments, redaction, onTriplet: (t) => triplets.push(t), onOutcome: (o) => outcomes.push(o) });
  const { body } = openInferenceTrace({
    query: `My e-mail is ${CANARIES[0]}; why was card ${CANARIES[1]} declined?`,
    documents: [{ id: 'kb-7', content: `Refunds go to IBAN ${CANARIES[2]}. Support: ${CANARIES[3]}. Logged from ${CANARIES[4]}.` }],
    response: `Card ${CANARIES[1]} was declined; we will write to ${CANARIES[0]}.`,
  });
  capture.addSpans(decodeTraceRequest(body).spans, 'otlp');
  await capture.forceFlush();
  return { instruments, triplets, outcomes };
}

describe('capture redacts before any sink', () => {
  it('triplets and outcomes carry placeholders, counts and the policy version; metrics count per entity', async () => {
    const { instruments, triplets, outcomes } = await run();
    expect(triplets).toHaveLength(1);
    const t = triplets[0]!;
    const everything = JSON.stringify({ triplets, outcomes });
    for (const canary of CANARIES) expect(everything).not.toContain(canary);
    expect(t.query).toBe('My e-mail is <EMAIL_1>; why was card <PAYMENT_CARD_1> declined?');
    expect(t.response).toBe('Card <PAYMENT_CARD_1> was declined; we will write to <EMAIL_1>.');
    expect(t.redactions).toEqual({ email: 2, payment_card: 2, iban: 1, phone: 1, ip_address: 1 });
    expect(t.redactionPolicy).toMatch(/^1\+[0-9a-f]{8}$/);
    const metric = await instruments.registry.getSingleMetricAsString('ragwatch_redactions_total');
    expect(metric).toContain('ragwatch_redactions_total{entity="email"} 2');
    expect(metric).toContain('ragwatch_redactions_total{entity="iban"} 1');
  });

  it('with redaction off the text passes and the triplet says policy "off"', async () => {
    const { triplets } = await run(redactionSection.parse({ enabled: false }));
    expect(triplets[0]!.query).toContain(CANARIES[0]);
    expect(triplets[0]!.redactionPolicy).toBe('off');
  });
});
