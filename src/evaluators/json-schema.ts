/**
 * `jsonSchema`: the whole response (trimmed) parses as JSON and, when a schema is given, validates
 * against it (ajv, strict mode; compiled once).
 * @module
 */
import { compileJsonSchema, type JsonValidator } from '../config/json-schema.ts';
import type { CheckRule } from './types.ts';

/** The response is JSON (`true`) valid against `schema` (an object). */
export function jsonSchemaRule(schema: true | Record<string, unknown>): CheckRule {
  let validate: JsonValidator | undefined;
  if (schema !== true) {
    const compiled = compileJsonSchema(schema);
    // The config schema refused an uncompilable one; reaching this is a bug, not a judgement to make up.
    if (!compiled.ok) throw new Error(`jsonSchema does not compile: ${compiled.problem}`);
    validate = compiled.validate;
  }
  const text = schema === true ? 'jsonSchema (valid JSON)' : 'jsonSchema';
  return {
    text,
    test({ response }) {
      let value: unknown;
      try {
        value = JSON.parse(response.trim());
      } catch {
        return { pass: false, failed: [`${text}: not JSON`] };
      }
      const verdict = validate?.(value) ?? { ok: true as const };
      return verdict.ok ? { pass: true, failed: [] } : { pass: false, failed: [`${text}: ${verdict.problem}`] };
    },
  };
}
