/**
 * Names people give things ragwatch reports on — probe suites, templates, variants, exams — as they
 * write them: `acme-hr`, `hr.v2`, `Ops "night" suite`. They become Prometheus label *values*, which
 * hold any UTF-8 (only label names are restricted), so only control characters and surrounding spaces
 * are refused and the length is bounded. Every place that writes one escapes it for its medium: the
 * exposition (prom-client), HTML (`escapeHtml`), URLs and anchors (`encodeURIComponent`), YAML (the
 * `yaml` library), PromQL string literals ({@link promqlString}).
 * @module
 */
import { z } from 'zod';

/** Longest suite, exam, template or variant name. */
export const MAX_NAME_CHARS = 100;

/** The schema of such a name. */
export const displayName = z
  .string()
  .min(1, 'a name is needed')
  .max(MAX_NAME_CHARS, `at most ${MAX_NAME_CHARS} characters`)
  .refine((v) => !/\p{Cc}/u.test(v), 'no control characters (newlines, tabs)')
  .refine((v) => v.trim() === v, 'no leading or trailing spaces');

/** A PromQL string literal holding `value` (double-quoted, backslash and quote escaped). */
export function promqlString(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
