/**
 * Issue 44: the Python RAG services of the `haystack2` environment (tests/python/envs/haystack2) captured by
 * `ragwatch start` over OTLP/gRPC and OTLP/HTTP; see tests/integration/python-harness.ts.
 */
import { pythonCaptureSuite } from './python-harness.ts';

pythonCaptureSuite('haystack2');
