/** OTLP/JSON RAG trace builders shared by tests and the demo (scripts/lib/otlp-trace.ts). */
export { CLOCK_TOWER, hexId, openInferenceTrace } from '../../scripts/lib/otlp-trace.ts';
export type { RagRequest } from '../../scripts/lib/otlp-trace.ts';
