/**
 * The front door shows the LLM judge's failures by step and reason, and the last one (issue 51): a
 * judge that cannot follow the protocol is visible where on-call looks, never a silent gap.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { configSummary } from '../../src/config/summary.ts';
import { LlmClient } from '../../src/judges/llm/client.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { createApiApp } from '../../src/server/api-app.ts';
import { createInstruments, instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';

async function frontDoor(record: (client: LlmClient) => void): Promise<string> {
  const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false } } });
  const instruments = createInstruments(instrumentsOptionsFromConfig(config));
  record(new LlmClient({ baseUrl: 'http://127.0.0.1:9/v1', instruments }));
  const app = createApiApp({ registry: instruments.registry, ready: () => true, quality: new QualityMonitor({ config, instruments }), summary: () => configSummary(config) });
  const res = await app.request('/');
  expect(res.status).toBe(200);
  return res.text();
}

describe('front door: LLM judge failures', () => {
  it('lists failures by reason with the last one', async () => {
    const html = await frontDoor((client) => {
      client.noteOutcome('response_match', 'malformed');
      client.noteOutcome('response_match', 'malformed');
      client.noteOutcome('decompose', 'context_exceeded');
      client.noteOutcome('decompose', 'valid_first_try');
    });
    expect(html).toContain('id="judge-failures"');
    expect(html).toMatch(/malformed \(response_match\) 2/);
    expect(html).toMatch(/context_exceeded \(decompose\) 1/);
    expect(html).toMatch(/Last: <b>(malformed|context_exceeded)<\/b>/);
  });

  it('says nothing when the judge has not failed', async () => {
    const html = await frontDoor((client) => client.noteOutcome('decompose', 'valid_first_try'));
    expect(html).not.toContain('judge-failures');
  });
});
