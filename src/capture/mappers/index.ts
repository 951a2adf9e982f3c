/**
 * The registry of convention mappers, tried in order: the first whose `role()` recognises a
 * span maps it.
 * @module
 */
import type { ConventionMapper } from '../types.ts';
import { openInferenceMapper } from './openinference.ts';

/** Built-in mappers in priority order. */
export const DEFAULT_MAPPERS: readonly ConventionMapper[] = [openInferenceMapper];
