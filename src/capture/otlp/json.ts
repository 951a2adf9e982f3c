/**
 * OTLP/JSON body parsing: strict UTF-8, then `JSON.parse`. Every failure, including a
 * `RangeError` from a pathologically deep document, becomes an {@link OtlpDecodeError} (400).
 * @module
 */
import { OtlpDecodeError, errorMessage } from '../../errors.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Parses a strict UTF-8 JSON body (a leading BOM is dropped). */
export function parseOtlpJson(body: Uint8Array): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new OtlpDecodeError('body is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    const why = err instanceof RangeError ? 'nested too deeply' : errorMessage(err);
    throw new OtlpDecodeError(`body is not valid JSON: ${why}`, 400, { cause: err });
  }
}
