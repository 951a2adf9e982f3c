/**
 * Issue 44: Python RAG services under the OpenInference instrumentations, exported by
 * `opentelemetry-instrument` over OTLP/gRPC (its default) and OTLP/HTTP protobuf into
 * `ragwatch start`: every answered turn is one triplet with the question, the retrieved documents
 * and the answer, scored; no other triplet. See tests/integration/python-harness.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMBINATIONS } from '../capture/helpers/python-combinations.ts';
import { havePython } from '../helpers/python.ts';
import { PythonHarness, TRANSPORTS, committedCapabilities } from './python-harness.ts';

const ENV = 'openinference';
const combos = COMBINATIONS.filter((c) => c.env === ENV);
const ready = havePython('python-openinference', [ENV]);

describe.skipIf(!ready)('Python services under OpenInference → ragwatch start', () => {
  const harness = new PythonHarness();
  beforeAll(() => harness.start(), 180_000);
  afterAll(() => harness.stop());

  for (const combo of combos) {
    for (const transport of TRANSPORTS) {
      it(`${combo.framework} + ${combo.instrumentation} over ${transport}`, { timeout: 240_000 }, async () => {
        const { run, triplets, check, unscored } = await harness.run(combo, transport);
        expect(run.reports.map((r) => `${r.scenario}/${r.turn}`)).toEqual(['answer/1', 'stream/1', 'chat/1', 'chat/2']);
        expect(check.problems.filter((p) => !/^stream: TTFT/.test(p))).toEqual([]);
        expect(check.phantoms).toEqual([]);
        expect(triplets).toHaveLength(4);
        expect(unscored).toEqual([]);
        expect(check.capabilities).toEqual(committedCapabilities(combo.id) ?? 'run once with RAGWATCH_WRITE_FIXTURES=1');
      });
    }
  }
});
