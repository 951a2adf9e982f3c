/**
 * Issue 44: the Python RAG services of the `traceloop` environment (tests/python/envs/traceloop) captured by
 * `ragwatch start` over OTLP/gRPC and OTLP/HTTP; see tests/integration/python-harness.ts.
 */
import { pythonCaptureSuite } from './python-harness.ts';

pythonCaptureSuite('traceloop');
