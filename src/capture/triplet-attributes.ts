/**
 * The attributes a triplet carries for sampling (`Triplet.attributes`): only the keys the sampling
 * configuration names (`config/sampling-attributes.ts`), looked up where an application sets them.
 * The nearest holder wins: the generation span, then its ancestors (nearest first), then the trace's
 * root span (reached even when a span between is missing), then the resource. Values are kept raw
 * here; redaction replaces identifiers by their pseudonyms and redacts text right after, before the
 * triplet leaves capture. Runs on the capture path: at most `keys × 66` map lookups, never throws.
 * @module
 */
import { MAX_SAMPLING_ATTRIBUTE_VALUE_CHARS } from '../config/sections/sampling.ts';
import type { Attributes, CapturedSpan } from './types.ts';

type Scalar = string | number | boolean;

/** Hops followed up the parent chain (as the rest of assembly). */
const MAX_DEPTH = 64;

/**
 * The attribute maps to search, nearest first: the span, its ancestors, the root of its trace
 * (when not already among them) and its resource.
 */
function holders(span: CapturedSpan, byId: ReadonlyMap<string, CapturedSpan>, rootOf: (traceId: string) => CapturedSpan | undefined): Attributes[] {
  const out: Attributes[] = [span.attributes];
  let top = span;
  for (let parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined, depth = 0; parent && depth < MAX_DEPTH; parent = parent.parentSpanId ? byId.get(parent.parentSpanId) : undefined, depth++) {
    out.push(parent.attributes);
    top = parent;
  }
  // The chain ended below the root (a span between is missing, or too deep): the root is searched apart.
  const root = top.parentSpanId ? rootOf(span.traceId) : undefined;
  if (root && root !== top) out.push(root.attributes);
  out.push(span.resource);
  return out;
}

/**
 * The values of `keys` for the generation `span`, or undefined when none is set. The nearest holder
 * of a key decides: a value that is not a scalar, or a string longer than
 * {@link MAX_SAMPLING_ATTRIBUTE_VALUE_CHARS}, leaves the key out (no rule can equal it).
 */
export function tripletAttributes(span: CapturedSpan, keys: readonly string[], byId: ReadonlyMap<string, CapturedSpan>, rootOf: (traceId: string) => CapturedSpan | undefined): Record<string, Scalar> | undefined {
  if (keys.length === 0) return undefined;
  const maps = holders(span, byId, rootOf);
  let out: Record<string, Scalar> | undefined;
  for (const key of keys) {
    for (const attrs of maps) {
      const v = Object.hasOwn(attrs, key) ? attrs[key] : undefined;
      if (v === undefined || v === null) continue;
      if ((typeof v === 'string' && v.length <= MAX_SAMPLING_ATTRIBUTE_VALUE_CHARS) || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) (out ??= {})[key] = v;
      break;
    }
  }
  return out;
}
