/**
 * The compatibility table of docs/capture.md (section "Python"), made from what the tests observed:
 * each combination's capture.json (written by the live runs, checked by them and by the recorded
 * fixtures) and the versions pinned in the environments' locks. tests/capture/python-compat-doc.test.ts
 * fails when the table in the doc differs; `RAGWATCH_WRITE_DOCS=1` rewrites it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Capabilities } from './python-capture.ts';
import { COMBINATIONS, TRANSPORTS, type Combination, type InstrumentationKind } from './python-combinations.ts';

const ROOT = join(import.meta.dirname, '../../..');
export const FIXTURES = join(ROOT, 'tests/fixtures/otlp/python');
export const DOC = join(ROOT, 'docs/capture.md');
export const START = '<!-- python-compat:start (generated from tests/fixtures/otlp/python/*/capture.json and tests/python/envs/*/requirements.txt; RAGWATCH_WRITE_DOCS=1 npx vitest run tests/capture/python-compat-doc.test.ts) -->';
export const END = '<!-- python-compat:end -->';

/** `name==version` pins of an environment's lock. */
export function lockedVersions(env: string): Map<string, string> {
  const text = readFileSync(join(ROOT, 'tests/python/envs', env, 'requirements.txt'), 'utf8');
  return new Map([...text.matchAll(/^([A-Za-z0-9_.-]+)==([^\s\\;]+)/gm)].map((m) => [m[1]!.toLowerCase(), m[2]!]));
}

/** How each instrumentation set's spans leave the process, over each transport. */
const TRANSPORT: Record<InstrumentationKind, string> = {
  openinference: '`opentelemetry-instrument`: OTLP/gRPC (default, 4317), `http/protobuf` (4318)',
  genai: '`opentelemetry-instrument`: OTLP/gRPC (default, 4317), `http/protobuf` (4318)',
  haystack: '`opentelemetry-instrument`: OTLP/gRPC (default, 4317), `http/protobuf` (4318)',
  traceloop: '`Traceloop.init`: `TRACELOOP_BASE_URL=grpc://…:4317` (OTLP/gRPC) or `http://…:4318` (OTLP/HTTP)',
  langfuse: 'its own OTLP/HTTP exporter (`LANGFUSE_BASE_URL=http://…:4318`, `LANGFUSE_OTEL_TRACES_EXPORT_PATH=v1/traces`), or `Langfuse(span_exporter=OTLPSpanExporter())` for OTLP/gRPC',
};

const yes = (v: boolean, no = 'no') => (v ? 'yes' : no);

/** The committed capabilities of a combination. */
export function capabilitiesOf(combo: Combination): Capabilities {
  return (JSON.parse(readFileSync(join(FIXTURES, combo.id, 'capture.json'), 'utf8')) as { capabilities: Capabilities }).capabilities;
}

/** The generated part of docs/capture.md: the table, then the settings that turn content on. */
export function renderCompat(): string {
  const rows = COMBINATIONS.map((c) => {
    const caps = capabilitiesOf(c);
    const versions = lockedVersions(c.env);
    const pinned = c.packages.map((p) => `${p} ${versions.get(p) ?? '?'}`).join(', ');
    const sources = caps.sources ? (c.sourcesFromPrompt ? 'yes, from the prompt (`capture.custom.promptContextPattern`)' : 'yes') : 'no';
    return `| Python | ${c.framework} | ${c.instrumentation} | ${pinned} | ${TRANSPORTS.map((t) => (t === 'grpc' ? 'OTLP/gRPC' : 'OTLP/HTTP')).join(', ')} | ${yes(caps.query)} | ${sources} | ${yes(caps.response)} | ${yes(caps.ttft, 'not recorded')} | ${yes(caps.tpot, 'not recorded')} | ${yes(caps.conversationId, 'not exported')} | ${yes(caps.history)} |`;
  });
  const kinds = [...new Map(COMBINATIONS.map((c) => [c.instrumentation.replace(/ \(.*\)$/, ''), c])).values()];
  const settings = kinds.map((c) => `| ${c.instrumentation.replace(/ \(.*\)$/, '')} | ${c.contentSetting} | ${TRANSPORT[c.kind]} |`);
  return [
    START,
    '| language | framework | instrumentation | versions tested | transports | query | sources | response | TTFT | TPOT | conversation id | earlier turns |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    '| instrumentation | content capture | export to ragwatch |',
    '|---|---|---|',
    ...settings,
    END,
  ].join('\n');
}
