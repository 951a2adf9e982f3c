/**
 * Issue 44: the Python RAG services of the `openinference` environment (tests/python/envs/openinference) captured by
 * `ragwatch start` over OTLP/gRPC and OTLP/HTTP; see tests/integration/python-harness.ts.
 */
import { pythonCaptureSuite } from './python-harness.ts';

pythonCaptureSuite('openinference');
