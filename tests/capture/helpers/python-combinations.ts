/**
 * The Python framework × instrumentation combinations ragwatch is tested against (tests/python/):
 * which environment and service run each, how the service is started, and what a user of that
 * library does to get content into the spans. What each one captures is not declared here: the
 * live runs observe it and compare it with tests/python/compat.json, from which the table in
 * docs/capture.md is made.
 */

/** Instrumentation sets; each decides how a service marks a conversation (RAG_INSTRUMENTATION). */
export type InstrumentationKind = 'openinference' | 'traceloop' | 'genai' | 'langfuse' | 'haystack';

/** One combination. */
export interface Combination {
  /** Service-name and fixture stem, e.g. `langchain-openinference`. */
  id: string;
  framework: 'LangChain' | 'LlamaIndex' | 'Haystack' | 'OpenAI SDK';
  /** The instrumentation as the table names it. */
  instrumentation: string;
  kind: InstrumentationKind;
  /** tests/python/envs/NAME. */
  env: string;
  /** tests/python/services/NAME. */
  service: string;
  /** Packages whose locked versions the table shows (framework first, then instrumentation). */
  packages: readonly string[];
  /** Started under `opentelemetry-instrument` (false: the library exports by itself). Default true. */
  instrument?: boolean;
  /** Environment the user sets (the content switch, instrumentors turned off, …). */
  env_vars?: Readonly<Record<string, string>>;
  /** What turns content capture on, for the table. */
  contentSetting: string;
  /** Sources come from the prompt (`capture.custom.promptContextPattern`), not a retriever span. */
  sourcesFromPrompt?: boolean;
}

/** The OTLP transports every combination is run over (OTLP/gRPC first: Python's default). */
export const TRANSPORTS = ['grpc', 'http/protobuf'] as const;
export type Transport = (typeof TRANSPORTS)[number];

/** `capture.custom.promptContextPattern` of the services' prompt (`Context:` then `[id] text` lines). */
export const PROMPT_CONTEXT_PATTERN = String.raw`Context:\n(?<context>[\s\S]*)$`;

const OPENINFERENCE_CONTENT = 'on by default (`OPENINFERENCE_HIDE_INPUTS` / `…_OUTPUTS` / `…_INPUT_MESSAGES` / `…_OUTPUT_MESSAGES` must not be set)';
const TRACELOOP_CONTENT = 'on by default (`TRACELOOP_TRACE_CONTENT=false` turns it off)';
const GENAI_CONTENT = '`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` = `span_only`, `event_only` or `span_and_event` (off by default; `event_only` needs the logs exported too: `OTEL_LOGS_EXPORTER=otlp`, the default of `opentelemetry-instrument`)';
const HAYSTACK_CONTENT = '`HAYSTACK_CONTENT_TRACING_ENABLED=true` (off by default)';
const LANGFUSE_CONTENT = 'always (the SDK records what it is given)';

export const COMBINATIONS: readonly Combination[] = [
  {
    id: 'langchain-openinference',
    framework: 'LangChain',
    instrumentation: 'OpenInference',
    kind: 'openinference',
    env: 'openinference',
    service: 'rag_langchain.py',
    packages: ['langchain-core', 'langchain-openai', 'openinference-instrumentation-langchain'],
    // As with `pip install openinference-instrumentation-langchain` alone: the OpenAI instrumentor (in
    // the same environment for the OpenAI SDK service) would add client spans in traces of their own.
    env_vars: { OTEL_PYTHON_DISABLED_INSTRUMENTATIONS: 'openai,llama_index' },
    contentSetting: OPENINFERENCE_CONTENT,
  },
  {
    id: 'llamaindex-openinference',
    framework: 'LlamaIndex',
    instrumentation: 'OpenInference',
    kind: 'openinference',
    env: 'openinference',
    service: 'rag_llamaindex.py',
    packages: ['llama-index-core', 'llama-index-llms-openai', 'openinference-instrumentation-llama-index', 'openinference-instrumentation-openai'],
    env_vars: { OTEL_PYTHON_DISABLED_INSTRUMENTATIONS: 'langchain' },
    contentSetting: OPENINFERENCE_CONTENT,
  },
  {
    id: 'openai-openinference',
    framework: 'OpenAI SDK',
    instrumentation: 'OpenInference',
    kind: 'openinference',
    env: 'openinference',
    service: 'rag_openai.py',
    packages: ['openai', 'openinference-instrumentation-openai'],
    env_vars: { OTEL_PYTHON_DISABLED_INSTRUMENTATIONS: 'langchain,llama_index' },
    contentSetting: OPENINFERENCE_CONTENT,
    sourcesFromPrompt: true,
  },
  {
    id: 'langchain-traceloop',
    framework: 'LangChain',
    instrumentation: 'OpenLLMetry',
    kind: 'traceloop',
    env: 'traceloop',
    service: 'rag_langchain.py',
    packages: ['langchain-core', 'langchain-openai', 'traceloop-sdk'],
    contentSetting: TRACELOOP_CONTENT,
  },
  {
    id: 'llamaindex-traceloop',
    framework: 'LlamaIndex',
    instrumentation: 'OpenLLMetry',
    kind: 'traceloop',
    env: 'traceloop',
    service: 'rag_llamaindex.py',
    packages: ['llama-index-core', 'llama-index-llms-openai', 'traceloop-sdk'],
    contentSetting: TRACELOOP_CONTENT,
  },
  {
    id: 'haystack-traceloop',
    framework: 'Haystack',
    instrumentation: 'OpenLLMetry',
    kind: 'traceloop',
    env: 'traceloop',
    service: 'rag_haystack.py',
    packages: ['haystack-ai', 'traceloop-sdk'],
    contentSetting: TRACELOOP_CONTENT,
    sourcesFromPrompt: true,
  },
  {
    id: 'openai-traceloop',
    framework: 'OpenAI SDK',
    instrumentation: 'OpenLLMetry',
    kind: 'traceloop',
    env: 'traceloop',
    service: 'rag_openai.py',
    packages: ['openai', 'traceloop-sdk'],
    contentSetting: TRACELOOP_CONTENT,
  },
  ...(['span_only', 'event_only', 'span_and_event'] as const).map(
    (mode): Combination => ({
      id: `openai-genai-${mode.replace(/_/g, '-')}`,
      framework: 'OpenAI SDK',
      instrumentation: `OpenTelemetry GenAI (${mode})`,
      kind: 'genai',
      env: 'genai',
      service: 'rag_openai.py',
      packages: ['openai', 'opentelemetry-instrumentation-genai-openai'],
      env_vars: { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: mode },
      contentSetting: GENAI_CONTENT,
      sourcesFromPrompt: true,
    }),
  ),
  {
    id: 'haystack-haystack',
    framework: 'Haystack',
    instrumentation: "Haystack's tracer",
    kind: 'haystack',
    env: 'genai',
    service: 'rag_haystack.py',
    packages: ['haystack-ai', 'opentelemetry-haystack'],
    env_vars: { HAYSTACK_CONTENT_TRACING_ENABLED: 'true', OTEL_PYTHON_DISABLED_INSTRUMENTATIONS: 'openai' },
    contentSetting: HAYSTACK_CONTENT,
  },
  {
    id: 'haystack2-haystack',
    framework: 'Haystack',
    instrumentation: "Haystack's tracer (Haystack 2)",
    kind: 'haystack',
    env: 'haystack2',
    service: 'rag_haystack.py',
    packages: ['haystack-ai'],
    env_vars: { HAYSTACK_CONTENT_TRACING_ENABLED: 'true' },
    contentSetting: HAYSTACK_CONTENT,
  },
  {
    id: 'haystack-genai',
    framework: 'Haystack',
    instrumentation: 'OpenTelemetry GenAI (span_only)',
    kind: 'genai',
    env: 'genai',
    service: 'rag_haystack.py',
    packages: ['haystack-ai', 'opentelemetry-instrumentation-genai-openai'],
    env_vars: { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'span_only' },
    contentSetting: GENAI_CONTENT,
    sourcesFromPrompt: true,
  },
  {
    id: 'openai-langfuse',
    framework: 'OpenAI SDK',
    instrumentation: 'Langfuse',
    kind: 'langfuse',
    env: 'langfuse',
    service: 'rag_openai.py',
    packages: ['openai', 'langfuse'],
    contentSetting: LANGFUSE_CONTENT,
  },
  {
    id: 'langchain-langfuse',
    framework: 'LangChain',
    instrumentation: 'Langfuse',
    kind: 'langfuse',
    env: 'langfuse',
    service: 'rag_langchain.py',
    packages: ['langchain-core', 'langchain-openai', 'langfuse'],
    contentSetting: LANGFUSE_CONTENT,
  },
  {
    id: 'openai-langfuse4',
    framework: 'OpenAI SDK',
    instrumentation: 'Langfuse (SDK 4)',
    kind: 'langfuse',
    env: 'langfuse4',
    service: 'rag_openai.py',
    packages: ['openai', 'langfuse'],
    contentSetting: LANGFUSE_CONTENT,
  },
  {
    id: 'langchain-langfuse4',
    framework: 'LangChain',
    instrumentation: 'Langfuse (SDK 4)',
    kind: 'langfuse',
    env: 'langfuse4',
    service: 'rag_langchain.py',
    packages: ['langchain-core', 'langchain-openai', 'langfuse'],
    contentSetting: LANGFUSE_CONTENT,
  },
];
