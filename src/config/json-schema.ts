/**
 * Compiles an operator-written JSON Schema (an evaluator's `jsonSchema` check) with ajv: checked once
 * when the config is validated, compiled again by the check that runs it. ajv is loaded on first use,
 * so a process without such a check (the in-host plugin) never pays for it.
 * @module
 */
import { createRequire } from 'node:module';
import type * as AjvModule from 'ajv';

const requireHere = createRequire(import.meta.url);

/** A compiled schema: true when `value` validates, else the first problem (path and message). */
export type JsonValidator = (value: unknown) => { ok: true } | { ok: false; problem: string };

/**
 * Compiles `schema` with ajv, refusing unknown keywords (a typo such as `requried` is an error,
 * not silently ignored). Draft-07 unless `$schema` names draft 2020-12. Remote `$ref`s are never fetched.
 * @returns the validator, or the reason the schema is refused
 */
export function compileJsonSchema(schema: Record<string, unknown>): { ok: true; validate: JsonValidator } | { ok: false; problem: string } {
  const draft2020 = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12');
  try {
    const Ctor = draft2020 ? (requireHere('ajv/dist/2020') as { Ajv2020: typeof AjvModule.Ajv }).Ajv2020 : (requireHere('ajv') as typeof AjvModule).Ajv;
    // Unknown keywords are errors (strictSchema); the style rules of strict mode (tuples, types, required) are not.
    const ajv = new Ctor({ strictSchema: true, strictNumbers: true, strictTuples: false, strictTypes: false, strictRequired: false, allErrors: false, validateFormats: false });
    const check = ajv.compile(schema);
    return {
      ok: true,
      validate: (value) => {
        if (check(value)) return { ok: true };
        const e = check.errors?.[0];
        return { ok: false, problem: `${e?.instancePath || '(root)'} ${e?.message ?? 'is invalid'}` };
      },
    };
  } catch (err) {
    return { ok: false, problem: (err as Error).message };
  }
}
