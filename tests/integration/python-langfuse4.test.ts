/**
 * Issue 44: the Python RAG services of the `langfuse4` environment (tests/python/envs/langfuse4) captured by
 * `ragwatch start` over OTLP/gRPC and OTLP/HTTP; see tests/integration/python-harness.ts.
 */
import { pythonCaptureSuite } from './python-harness.ts';

pythonCaptureSuite('langfuse4');
