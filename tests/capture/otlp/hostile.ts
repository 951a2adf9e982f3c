/**
 * Hostile OTLP bodies built without recursion or quadratic copying (protobufjs Writer for the
 * wire format), shared by the decoder and HTTP ingest tests.
 */
import protobuf from 'protobufjs/light.js';

const LEN = 2; // length-delimited wire type

/** Bytes of an AnyValue nested `levels` deep through `array_value` (5) → `ArrayValue.values` (1). */
export function deepAnyValue(levels: number): Uint8Array {
  const inner = protobuf.Writer.create().uint32((1 << 3) | LEN).string('x').finish(); // string_value
  // Protobuf has no closing tokens: the body is every header, outermost first, then the innermost value.
  const lengths: number[] = [inner.length];
  const varintBytes = (n: number) => protobuf.Writer.create().uint32(n).finish().length;
  for (let i = 0; i < 2 * levels; i++) lengths.push(1 + varintBytes(lengths[i]!) + lengths[i]!);
  const w = protobuf.Writer.create();
  for (let i = 2 * levels - 1; i >= 0; i--) {
    const field = i % 2 === 1 ? 5 : 1; // odd: AnyValue.array_value, even: ArrayValue.values
    w.uint32((field << 3) | LEN).uint32(lengths[i]!);
  }
  const headers = w.finish();
  return Buffer.concat([headers, inner]);
}

/** A string of 10k-deep (or `levels`-deep) nested OTLP/JSON AnyValue arrays. */
export function deepJsonAnyValue(levels: number): string {
  return '{"arrayValue":{"values":['.repeat(levels) + '{"stringValue":"x"}' + ']}}'.repeat(levels);
}
