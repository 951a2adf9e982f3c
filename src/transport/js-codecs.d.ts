// Types of the two untyped pure-JS codec packages, as far as src/transport/kafka-codecs.ts uses them.
declare module 'snappyjs' {
  /** Raw snappy block → bytes; throws on a malformed block or one stating more than `maxLength` bytes. */
  export function uncompress(compressed: Uint8Array, maxLength?: number): Uint8Array;
  export function compress(uncompressed: Uint8Array): Uint8Array;
}
declare module 'lz4js' {
  /** LZ4 frame → bytes. */
  export function decompress(src: Uint8Array, maxSize?: number): Uint8Array;
  /** Decompresses one LZ4 frame into `dst`; returns the bytes produced (past `dst.length` when a block overran it: those were dropped). */
  export function decompressFrame(src: Uint8Array, dst: Uint8Array): number;
  /** Bytes → LZ4 frame. */
  export function compress(src: Uint8Array, maxSize?: number): Uint8Array;
}
