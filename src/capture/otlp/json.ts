/**
 * OTLP/JSON body parsing: strict UTF-8, a nesting-depth pre-check, then `JSON.parse`. Every
 * failure becomes an {@link OtlpDecodeError} (400).
 *
 * Why the pre-check: V8's `JSON.parse` does not overflow the stack on deep documents, but a
 * 16 MiB body of `{"a":{"a":…` takes seconds of event-loop time to parse, blocking every other
 * request. Valid OTLP never nests deeper than ~110 levels (attribute values stop at
 * {@link MAX_VALUE_DEPTH}), so deeper bodies are refused before parsing.
 * @module
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { OtlpDecodeError, errorMessage } from '../../errors.ts';
import { MAX_VALUE_DEPTH } from './any-value.ts';

/** Deepest `{`/`[` nesting accepted in an OTLP/JSON body: the envelope plus 3 levels per attribute level. */
export const MAX_JSON_DEPTH = 16 + 3 * (MAX_VALUE_DEPTH + 1);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when `body` nests `{`/`[` deeper than `limit` outside strings. Strings are skipped with
 * native `indexOf`, so the scan costs a fraction of `JSON.parse`. Malformed JSON is left to
 * `JSON.parse` to report.
 */
export function jsonDepthExceeds(body: Uint8Array, limit: number): boolean {
  let depth = 0;
  const n = body.length;
  for (let i = 0; i < n; i++) {
    const c = body[i];
    if (c === QUOTE) {
      let j = i;
      for (;;) {
        j = body.indexOf(QUOTE, j + 1);
        if (j < 0) return false;
        let backslashes = 0;
        for (let k = j - 1; body[k] === BACKSLASH; k--) backslashes++;
        if ((backslashes & 1) === 0) break;
      }
      i = j;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/** Parses a strict UTF-8 JSON body (a leading BOM is rejected by `JSON.parse`, as JSON requires). */
export function parseOtlpJson(body: Buffer): unknown {
  // ASCII, the usual case, is valid UTF-8 and decodes to the same string as latin1, which is cheaper.
  const ascii = isAscii(body);
  if (!ascii && !isUtf8(body)) throw new OtlpDecodeError('body is not valid UTF-8');
  if (jsonDepthExceeds(body, MAX_JSON_DEPTH)) throw new OtlpDecodeError(`body is not valid OTLP/JSON: nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(body.toString(ascii ? 'latin1' : 'utf8'));
  } catch (err) {
    const why = err instanceof RangeError ? 'nested too deeply' : errorMessage(err);
    throw new OtlpDecodeError(`body is not valid JSON: ${why}`, 400, { cause: err });
  }
}
