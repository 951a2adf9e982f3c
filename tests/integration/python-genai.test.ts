/**
 * Issue 44: the Python RAG services of the `genai` environment (tests/python/envs/genai) captured by
 * `ragwatch start` over OTLP/gRPC and OTLP/HTTP; see tests/integration/python-harness.ts.
 */
import { pythonCaptureSuite } from './python-harness.ts';

pythonCaptureSuite('genai');
