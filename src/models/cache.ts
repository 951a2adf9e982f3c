/**
 * The model cache: GGUF files in one directory and `registry.json` beside them, recording what was
 * verified (size, sha256, mtime). A file is hashed when it is pulled or added, and again before it
 * loads only if it changed since (size or mtime): a 1 GB hash is not paid at every start.
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, link, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { RagwatchError } from '../errors.ts';
import { MODEL_CATALOGUE, catalogueModel } from './catalogue.ts';
import type { CachedModel, ModelPromptFormat } from './types.ts';
import { isGguf, sha256File } from './verify.ts';

interface Registry {
  version: 1;
  models: Record<string, CachedModel>;
}

/** Options of {@link ModelCache.add}; all optional. */
export interface AddModelOptions {
  /** The name to register; default the catalogue name whose sha256 the file has. */
  name?: string;
  /** Prompt format of a model outside the catalogue. Default `chatml`. */
  format?: ModelPromptFormat;
  /** Licence of a model outside the catalogue. Default `unknown`. */
  licence?: string;
  /** Where the file came from, for the record. Default the file's path. */
  source?: string;
  /** Expected sha256 (what `pull` downloaded against); a mismatch is refused. */
  sha256?: string;
  /** Move the file instead of copying it (`pull`'s finished download). Default false. */
  move?: boolean;
}

/** The model cache when `judge.local.cacheDir` is not set. */
export function defaultModelCacheDir(): string {
  return join(homedir(), '.cache', 'ragwatch', 'models');
}

/** A directory of verified model files. */
export class ModelCache {
  /** The directory (absolute). */
  readonly dir: string;

  constructor(dir: string) {
    this.dir = resolve(dir);
  }

  /** Every registered model, with whether its file is still there. */
  async list(): Promise<Array<CachedModel & { present: boolean }>> {
    const reg = await this.#read();
    const out: Array<CachedModel & { present: boolean }> = [];
    for (const m of Object.values(reg.models)) out.push({ ...m, present: await exists(m.path) });
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The registered model `name` whose file exists, else undefined. */
  async find(name: string): Promise<CachedModel | undefined> {
    const m = (await this.#read()).models[name];
    return m && (await exists(m.path)) ? m : undefined;
  }

  /**
   * Verifies `file` (GGUF magic, sha256; a catalogue name must match the catalogue's sha256 and
   * size), puts it in the cache and registers it. Refused files are left where they were.
   */
  async add(file: string, options: AddModelOptions = {}): Promise<CachedModel> {
    const path = resolve(file);
    const st = await stat(path).catch(() => undefined);
    if (!st?.isFile()) throw new RagwatchError('RAGWATCH_MODEL_MISSING', `no model file at ${path}`);
    if (!(await isGguf(path))) throw new RagwatchError('RAGWATCH_MODEL_INVALID', `${path} is not a GGUF file (no GGUF magic)`);
    const sha256 = await sha256File(path);
    if (options.sha256 !== undefined && options.sha256 !== sha256) throw new RagwatchError('RAGWATCH_MODEL_INVALID', `${path}: sha256 ${sha256}, expected ${options.sha256}`);
    const known = options.name !== undefined ? catalogueModel(options.name) : MODEL_CATALOGUE.find((m) => m.sha256 === sha256);
    if (known && (known.sha256 !== sha256 || known.bytes !== st.size)) {
      throw new RagwatchError('RAGWATCH_MODEL_INVALID', `${path} is not the catalogue's ${known.name}: sha256 ${sha256} (${st.size} bytes), expected ${known.sha256} (${known.bytes} bytes)`);
    }
    const name = options.name ?? known?.name;
    if (name === undefined) throw new RagwatchError('RAGWATCH_MODEL_INVALID', `${basename(path)} is not in the catalogue (sha256 ${sha256}): give it a name with --name`);
    if (!/^[a-z0-9][a-z0-9._-]{0,63}$/.test(name)) throw new RagwatchError('RAGWATCH_MODEL_INVALID', `model name "${name}": lower-case letters, digits, ".", "_" and "-" only`);
    await mkdir(this.dir, { recursive: true });
    const target = join(this.dir, known?.file ?? `${name}.gguf`);
    if (target !== path) {
      const tmp = `${target}.adding`;
      await rm(tmp, { force: true });
      // A hard link on the same file system (no second gigabyte), else a copy.
      if (options.move) await rename(path, tmp).catch(async () => copyFile(path, tmp));
      else await link(path, tmp).catch(async () => copyFile(path, tmp));
      await rename(tmp, target);
    }
    const entry: CachedModel = {
      name,
      path: target,
      bytes: st.size,
      sha256,
      format: known?.format ?? options.format ?? 'chatml',
      licence: known?.licence ?? options.licence ?? 'unknown',
      origin: options.move ? 'pull' : 'add',
      source: options.source ?? path,
      verifiedAt: new Date().toISOString(),
      mtimeMs: (await stat(target)).mtimeMs,
    };
    const reg = await this.#read();
    reg.models[name] = entry;
    await this.#write(reg);
    return entry;
  }

  /**
   * The model `name`, checked for loading: registered, present, and unchanged since it was verified
   * (a changed file is hashed again; a mismatch is refused).
   */
  async verifiedForLoad(name: string): Promise<CachedModel> {
    const m = (await this.#read()).models[name];
    const st = m ? await stat(m.path).catch(() => undefined) : undefined;
    if (!m || !st) throw new RagwatchError('RAGWATCH_MODEL_MISSING', missingModelLine(name, this.dir));
    if (st.size === m.bytes && st.mtimeMs === m.mtimeMs) return m;
    const sha256 = st.size === m.bytes ? await sha256File(m.path) : '(size differs)';
    if (sha256 !== m.sha256) throw new RagwatchError('RAGWATCH_MODEL_INVALID', `model ${name} at ${m.path} changed since it was verified (sha256 ${sha256}, expected ${m.sha256}): run ragwatch models add or pull again`);
    const reg = await this.#read();
    reg.models[name] = { ...m, mtimeMs: st.mtimeMs, verifiedAt: new Date().toISOString() };
    await this.#write(reg);
    return reg.models[name]!;
  }

  /** Removes `name` from the registry and its file from the cache. */
  async remove(name: string): Promise<boolean> {
    const reg = await this.#read();
    const m = reg.models[name];
    if (!m) return false;
    delete reg.models[name];
    await this.#write(reg);
    if (m.path.startsWith(this.dir)) await rm(m.path, { force: true });
    return true;
  }

  async #read(): Promise<Registry> {
    const text = await readFile(join(this.dir, 'registry.json'), 'utf8').catch(() => undefined);
    if (text === undefined) return { version: 1, models: {} };
    try {
      const parsed = JSON.parse(text) as Registry;
      return parsed.version === 1 && typeof parsed.models === 'object' ? parsed : { version: 1, models: {} };
    } catch {
      return { version: 1, models: {} };
    }
  }

  async #write(reg: Registry): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const tmp = join(this.dir, `.registry.${process.pid}.json`);
    await writeFile(tmp, `${JSON.stringify(reg, null, 2)}\n`);
    await rename(tmp, join(this.dir, 'registry.json'));
  }
}

/**
 * True when `name` is registered in `dir` and its file exists (synchronous: read once when a process
 * chooses its judge; the file is verified again before it loads).
 */
export function isModelCachedSync(dir: string, name: string): boolean {
  try {
    const reg = JSON.parse(readFileSync(join(dir, 'registry.json'), 'utf8')) as Registry;
    const m = reg.models[name];
    return m !== undefined && existsSync(m.path);
  } catch {
    return false;
  }
}

/** The one line a missing model gives: what to run. */
export function missingModelLine(name: string, dir: string): string {
  const how = catalogueModel(name) ? `ragwatch models pull ${name}` : `ragwatch models add FILE.gguf --name ${name}`;
  return `local judge model "${name}" is not in the model cache ${dir}: run \`${how}\` (offline: \`ragwatch models add FILE.gguf\`)`;
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}
