/**
 * Checks a model file before anything loads it: the GGUF magic, the size and the sha256 (streamed,
 * so a 1 GB file costs ≈ 1 GB of reads and a few MB of memory).
 * @module
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';

/** sha256 of a file, hex. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** True when the file starts with the GGUF magic ("GGUF"). */
export async function isGguf(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(4);
    const { bytesRead } = await fh.read(buf, 0, 4, 0);
    return bytesRead === 4 && buf.toString('latin1') === 'GGUF';
  } finally {
    await fh.close();
  }
}
