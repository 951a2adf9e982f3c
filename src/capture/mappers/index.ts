/**
 * The registry of convention mappers, tried in order: the first whose `role()` recognises a
 * span maps it. Specific conventions come before the generic GenAI one (Traceloop and the AI SDK
 * also write `gen_ai.*` attributes); the configurable `custom` mapper comes last.
 * @module
 */
import type { ConventionMapper } from '../types.ts';
import { createCustomMapper, customMapper, type CustomConventionOptions } from './custom.ts';
import { genAiMapper } from './genai.ts';
import { haystackMapper } from './haystack.ts';
import { langfuseMapper } from './langfuse.ts';
import { openInferenceMapper } from './openinference.ts';
import { traceloopMapper } from './traceloop.ts';
import { vercelAiMapper } from './vercel-ai.ts';

const BUILT_IN: readonly ConventionMapper[] = [openInferenceMapper, langfuseMapper, traceloopMapper, vercelAiMapper, haystackMapper, genAiMapper];

/** Built-in mappers in priority order, with the custom mapper on its default attribute names. */
export const DEFAULT_MAPPERS: readonly ConventionMapper[] = [...BUILT_IN, customMapper];

/** Built-in mappers plus the custom mapper on the configured attribute names. */
export function createMappers(custom: CustomConventionOptions): readonly ConventionMapper[] {
  return [...BUILT_IN, createCustomMapper(custom)];
}
