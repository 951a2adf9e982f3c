/**
 * The Langfuse writer's requests validate against Langfuse's published OpenAPI description
 * (tests/fixtures/langfuse/openapi.yml, pinned; SOURCE.md says where it came from): the operation
 * exists with that method and Basic auth, and every body is a valid `CreateScoreRequest` — checked
 * with ajv, and no key sent that the schema does not declare. Retries honour Retry-After; the PII
 * canary of an explanation never reaches Langfuse.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv } from 'ajv';
import { Registry } from 'prom-client';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { createEvaluationExport } from '../../src/evaluation-export/create.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { metricValue } from '../helpers/process.ts';

interface OpenApi {
  paths: Record<string, Record<string, { security?: Array<Record<string, unknown>>; requestBody?: { content: Record<string, { schema: { $ref: string } }> } }>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }>; securitySchemes: Record<string, { type: string; scheme?: string }> };
}

// The description shares its security requirement through one YAML anchor used by every operation.
const SPEC = parse(readFileSync(new URL('../fixtures/langfuse/openapi.yml', import.meta.url), 'utf8'), { maxAliasCount: -1 }) as OpenApi;
const CANARY = 'canary.person@example-pii.org';

/**
 * An OpenAPI 3.0 document's schemas read as JSON Schema, by the 3.0 rules: `nullable: true` adds `null` to
 * `type`; a `$ref` stands alone (3.0: properties beside a Reference Object "SHALL be ignored").
 */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (typeof node !== 'object' || node === null) return node;
  const o = node as Record<string, unknown>;
  if (typeof o.$ref === 'string') return { $ref: o.$ref };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (k !== 'nullable') out[k] = toJsonSchema(v);
  if (o.nullable === true && typeof o.type === 'string') out.type = [o.type, 'null'];
  return out;
}

interface Captured {
  method: string;
  path: string;
  authorization: string;
  contentType: string;
  body: unknown;
  raw: string;
  at: number;
}

let server: Server;
let baseUrl = '';
const captured: Captured[] = [];
/** Statuses for the next requests, in order (then 200). */
const script: Array<{ status: number; retryAfter?: string }> = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      captured.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization ?? '', contentType: req.headers['content-type'] ?? '', body: JSON.parse(raw), raw, at: Date.now() });
      const next = script.shift();
      if (next) {
        res.writeHead(next.status, next.retryAfter ? { 'Retry-After': next.retryAfter } : {});
        res.end('{}');
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ id: (JSON.parse(raw) as { id?: string }).id ?? 'x' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function record(tripletId: string): { record: ScoreRecord; triplet: SampledTriplet } {
  const triplet: SampledTriplet = {
    id: tripletId,
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    responseId: 'chatcmpl-42',
    service: 'rag-api',
    release: '1.4.2',
    timestamp: new Date().toISOString(),
    query: 'q',
    sources: [{ content: 's' }],
    response: 'r',
    latency: { durationMs: 1 },
    convention: 'genai',
    sampling: { weight: 1, stratum: 'all', rule: 'rate' },
  };
  const r: ScoreRecord = {
    tripletId,
    traceId: triplet.traceId,
    service: 'rag-api',
    release: '1.4.2',
    stratum: 'all',
    weight: 1,
    timestamp: new Date().toISOString(),
    judge: { kind: 'llm', model: 'gpt-4o-mini' },
    scores: { groundedness: 0.5, response_query_coverage: 1 },
    skipped: { faithfulness: 'no_claims' },
    details: { claims: [{ text: `Mail ${CANARY} for a refund.`, verdict: 'not_in_sources' }, { text: 'It opened in 1896.', verdict: 'supported' }], subQuestions: [], sources: [], redundantSentences: [] },
    diagnosis: [],
    usage: { calls: 1, inputTokens: 1, outputTokens: 1, durationMs: 1 },
  };
  return { record: r, triplet };
}

function exporter(registry: Registry) {
  const config = loadConfig({ env: { LANGFUSE_PUBLIC_KEY: 'pk-lf-test', LANGFUSE_SECRET_KEY: 'sk-lf-test' }, overrides: { evaluationExport: { langfuse: { baseUrl, environment: 'production', scheduledDelayMs: 10, retry: { initialBackoffMs: 50 } } } } });
  return createEvaluationExport(config, { registry })!;
}

describe("Langfuse writer against Langfuse's OpenAPI description", () => {
  it('the operation it calls exists, with Basic auth and a JSON CreateScoreRequest body', () => {
    const op = SPEC.paths['/api/public/scores']?.post;
    expect(op).toBeDefined();
    expect(op!.requestBody!.content['application/json']!.schema.$ref).toBe('#/components/schemas/CreateScoreRequest');
    const schemes = (op!.security ?? []).flatMap((s) => Object.keys(s));
    expect(schemes).toContain('BasicAuth');
    expect(SPEC.components.securitySchemes.BasicAuth).toMatchObject({ type: 'http', scheme: 'basic' });
  });

  it('sends one valid score per scored metric (none for a skipped one), on the OTel trace and span', async () => {
    captured.length = 0;
    const registry = new Registry();
    const sink = exporter(registry);
    const { record: r, triplet } = record('triplet-1');
    sink.onRecord(r, triplet);
    await sink.forceFlush();
    await sink.shutdown();
    expect(captured).toHaveLength(2);
    // OpenAPI 3.0 schemas as JSON Schema (see toJsonSchema); formats such as `double` are annotations.
    const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema(toJsonSchema(SPEC) as object, 'langfuse');
    const validate = ajv.getSchema('langfuse#/components/schemas/CreateScoreRequest')!;
    // The validator can fail: a body without a value, or with a value of the wrong type, is refused.
    expect(validate({ name: 'groundedness' })).toBe(false);
    expect(validate({ name: 'groundedness', value: { score: 1 } })).toBe(false);
    expect(validate({ name: 'groundedness', value: 1, dataType: 'PERCENT' })).toBe(false);
    const declared = Object.keys(SPEC.components.schemas.CreateScoreRequest!.properties!);
    const expectedAuth = `Basic ${Buffer.from('pk-lf-test:sk-lf-test').toString('base64')}`;
    for (const c of captured) {
      expect(c.method).toBe('POST');
      expect(c.path).toBe('/api/public/scores');
      expect(c.contentType).toBe('application/json');
      expect(c.authorization).toBe(expectedAuth);
      expect(validate(c.body), JSON.stringify(validate.errors)).toBe(true);
      expect(Object.keys(c.body as object).filter((k) => !declared.includes(k))).toEqual([]);
      expect(c.body).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', observationId: 'b7ad6b7169203331', dataType: 'NUMERIC', environment: 'production' });
      expect(c.raw.includes(CANARY)).toBe(false);
    }
    const byName = Object.fromEntries(captured.map((c) => [(c.body as { name: string }).name, c.body as Record<string, unknown>]));
    expect(byName.groundedness).toMatchObject({ value: 0.5, metadata: { label: 'fail', judge: 'llm', judge_model: 'gpt-4o-mini', response_id: 'chatcmpl-42' } });
    expect(String(byName.groundedness!.comment)).toMatch(/^unsupported claims: Mail <EMAIL_1> for a refund\.$/);
    expect(byName.response_query_coverage).toMatchObject({ value: 1, metadata: { label: 'pass' } });
    expect(metricValue(await registry.metrics(), 'ragwatch_evaluation_exported_total', { writer: 'langfuse' })).toBe(2);
  });

  it('gives a re-scored result the same score id (Langfuse upserts), and one id per metric and judge', async () => {
    captured.length = 0;
    const sink = exporter(new Registry());
    sink.onRecord(record('triplet-2').record, record('triplet-2').triplet);
    sink.onRecord(record('triplet-2').record, record('triplet-2').triplet);
    await sink.shutdown();
    const ids = captured.map((c) => (c.body as { id: string }).id);
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(2);
  });

  it('retries a 429 after its Retry-After, and drops a 400 without retrying', async () => {
    captured.length = 0;
    script.push({ status: 429, retryAfter: '1' }, { status: 400 });
    const registry = new Registry();
    const sink = exporter(registry);
    const { record: r, triplet } = record('triplet-3');
    sink.onRecord({ ...r, scores: { groundedness: 0.5 } }, triplet);
    await sink.forceFlush();
    await sink.shutdown();
    // 429 → wait ≥ 1 s → 400: not retried again.
    expect(captured).toHaveLength(2);
    expect(captured[1]!.at - captured[0]!.at).toBeGreaterThanOrEqual(950);
    const exposition = await registry.metrics();
    expect(metricValue(exposition, 'ragwatch_evaluation_export_dropped_total', { writer: 'langfuse', reason: 'rejected' })).toBe(1);
    expect(metricValue(exposition, 'ragwatch_evaluation_export_retries_total', { writer: 'langfuse' })).toBe(1);
  });
});
