/**
 * The model cache: a file is verified (GGUF magic, sha256, the catalogue's size and sha256 for a
 * catalogued name) before it is registered; a file changed after that is hashed again before it
 * loads and refused on a mismatch; a missing model is one line naming the command.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ModelCache, isModelCachedSync, missingModelLine } from '../../src/models/cache.ts';

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-models-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function gguf(name: string, body = 'weights'): { path: string; sha256: string } {
  const path = join(dir, name);
  const bytes = Buffer.concat([Buffer.from('GGUF'), Buffer.from(body)]);
  writeFileSync(path, bytes);
  return { path, sha256: createHash('sha256').update(bytes).digest('hex') };
}

describe('ModelCache', () => {
  it('adds a named GGUF (hashed, linked or copied into the cache) and lists it', async () => {
    const cache = new ModelCache(join(dir, 'cache-a'));
    const f = gguf('tiny.gguf');
    const m = await cache.add(f.path, { name: 'tiny-judge', licence: 'MIT' });
    expect(m).toMatchObject({ name: 'tiny-judge', sha256: f.sha256, bytes: 11, licence: 'MIT', format: 'chatml', origin: 'add' });
    expect(m.path).toBe(join(cache.dir, 'tiny-judge.gguf'));
    expect(existsSync(f.path)).toBe(true);
    expect((await cache.list()).map((x) => [x.name, x.present])).toEqual([['tiny-judge', true]]);
    expect(isModelCachedSync(cache.dir, 'tiny-judge')).toBe(true);
    expect(isModelCachedSync(cache.dir, 'other')).toBe(false);
    expect((await cache.verifiedForLoad('tiny-judge')).path).toBe(m.path);
  });

  it('refuses a file that is not GGUF, an unknown file without a name, and a catalogue name with another sha256', async () => {
    const cache = new ModelCache(join(dir, 'cache-b'));
    const notGguf = join(dir, 'model.bin');
    writeFileSync(notGguf, 'PK\u0003\u0004 not a model');
    await expect(cache.add(notGguf, { name: 'x' })).rejects.toMatchObject({ code: 'RAGWATCH_MODEL_INVALID', message: expect.stringContaining('not a GGUF file') });
    const f = gguf('unknown.gguf', 'other weights');
    await expect(cache.add(f.path)).rejects.toThrow(/not in the catalogue .*give it a name with --name/);
    await expect(cache.add(f.path, { name: 'qwen2.5-coder-1.5b-instruct' })).rejects.toThrow(/is not the catalogue's qwen2.5-coder-1.5b-instruct: sha256/);
    await expect(cache.add(f.path, { name: 'Bad Name' })).rejects.toThrow(/lower-case letters/);
    await expect(cache.add(join(dir, 'absent.gguf'), { name: 'x' })).rejects.toMatchObject({ code: 'RAGWATCH_MODEL_MISSING' });
    expect(await cache.list()).toEqual([]);
  });

  it('hashes a changed file again before loading and refuses it when it no longer matches', async () => {
    const cache = new ModelCache(join(dir, 'cache-c'));
    const f = gguf('changing.gguf', 'v1');
    const m = await cache.add(f.path, { name: 'changing' });
    // Same content, new mtime: hashed again, accepted, the record refreshed.
    utimesSync(m.path, new Date(), new Date(Date.now() + 5_000));
    expect((await cache.verifiedForLoad('changing')).sha256).toBe(f.sha256);
    appendFileSync(m.path, 'tampered');
    await expect(cache.verifiedForLoad('changing')).rejects.toMatchObject({ code: 'RAGWATCH_MODEL_INVALID', message: expect.stringContaining('changed since it was verified') });
  });

  it('names the command to run when a model is missing', async () => {
    const cache = new ModelCache(join(dir, 'cache-d'));
    await expect(cache.verifiedForLoad('qwen2.5-coder-1.5b-instruct')).rejects.toMatchObject({
      code: 'RAGWATCH_MODEL_MISSING',
      message: expect.stringContaining('run `ragwatch models pull qwen2.5-coder-1.5b-instruct`'),
    });
    expect(missingModelLine('mine', '/m')).toContain('ragwatch models add FILE.gguf --name mine');
  });

  it('removes a model and its file', async () => {
    const cache = new ModelCache(join(dir, 'cache-e'));
    const m = await cache.add(gguf('gone.gguf').path, { name: 'gone' });
    expect(await cache.remove('gone')).toBe(true);
    expect(existsSync(m.path)).toBe(false);
    expect(await cache.remove('gone')).toBe(false);
  });
});
