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

/** `capture.custom.promptContextPattern` of the services' prompt (`Context:` then `[id] text` lines). */
export const PROMPT_CONTEXT_PATTERN = String.raw`Context:\n(?<context>[\s\S]*)$`;

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
    contentSetting: 'on by default (`OPENINFERENCE_HIDE_INPUTS` / `…_OUTPUTS` must not be set)',
  },
];
