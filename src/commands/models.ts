/**
 * `ragwatch models pull|add|list|remove`: the local judge's models as files (DESIGN §8): pulled from
 * their publisher with a progress bar, resume and a sha256 check, or added from a file (offline,
 * air-gapped), into the model cache `judge.local.cacheDir` (env `RAGWATCH_MODEL_CACHE`).
 * @module
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load.ts';
import { ConfigError } from '../errors.ts';
import { modelCacheDir } from '../judges/create.ts';
import { ModelCache } from '../models/cache.ts';
import { MODEL_CATALOGUE, catalogueModel } from '../models/catalogue.ts';
import { pullModel } from '../models/pull.ts';
import type { Command } from './types.ts';

export const modelsCommand: Command = {
  name: 'models',
  summary: 'local judge models: pull NAME, add FILE, list, remove NAME',
  usage: `usage: ragwatch models pull NAME [--url URL]
       ragwatch models add FILE.gguf [--name NAME] [--licence L]
       ragwatch models list
       ragwatch models remove NAME
  (each takes -c FILE for the configuration)

pull    downloads a catalogued model from its publisher into the model cache: redirects followed, an
        interrupted download resumed (run it again), the sha256 checked; a file that fails the check
        is removed. --url fetches the same file from a mirror of yours.
add     verifies a GGUF you have (offline, air-gapped) and puts it in the cache: a catalogued model's
        sha256 must match the catalogue; another model needs --name.
list    the catalogue and the cache.
The cache is judge.local.cacheDir (env RAGWATCH_MODEL_CACHE; default ~/.cache/ragwatch/models); the
local judge loads judge.local.model from it (docs/judges.md).`,
  async run(argv) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { config: { type: 'string', short: 'c' }, url: { type: 'string' }, name: { type: 'string' }, licence: { type: 'string' } },
    });
    const [sub, arg] = positionals;
    const config = loadConfig(values.config ? { file: values.config } : {});
    const cache = new ModelCache(modelCacheDir(config));
    const out = (line: string): void => void process.stdout.write(`${line}\n`);
    if (sub === 'list') {
      const cached = await cache.list();
      out(`model cache ${cache.dir}`);
      for (const m of MODEL_CATALOGUE) {
        const c = cached.find((x) => x.name === m.name);
        out(`  ${m.name.padEnd(32)} ${c?.present ? 'cached ' : 'missing'}  ${m.description}; licence ${m.licence}${m.name === config.judge.local.model ? '  (judge.local.model)' : ''}`);
      }
      for (const c of cached.filter((x) => !catalogueModel(x.name))) out(`  ${c.name.padEnd(32)} ${c.present ? 'cached ' : 'missing'}  added from ${c.source}; ${(c.bytes / 1e9).toFixed(2)} GB; licence ${c.licence}`);
      return;
    }
    if (sub === 'pull' && arg) {
      const model = catalogueModel(arg);
      if (!model) throw new ConfigError(`ragwatch models pull: no model "${arg}" in the catalogue (${MODEL_CATALOGUE.map((m) => m.name).join(', ')}); a file of your own: ragwatch models add FILE --name ${arg}`, ['NAME']);
      const have = await cache.find(model.name);
      if (have) return out(`${model.name}: already in the cache (${have.path})`);
      process.stderr.write(`${model.name}: ${model.description}, licence ${model.licence}\n`);
      const bar = progressBar();
      const m = await pullModel(cache, model, { onProgress: bar, onNotice: (msg) => process.stderr.write(`\n${model.name}: ${msg}\n`), ...(values.url ? { url: values.url } : {}) });
      process.stderr.write('\n');
      return out(`${m.name}: verified (sha256 ${m.sha256.slice(0, 16)}…) and cached at ${m.path}`);
    }
    if (sub === 'add' && arg) {
      const m = await cache.add(arg, { ...(values.name ? { name: values.name } : {}), ...(values.licence ? { licence: values.licence } : {}) });
      return out(`${m.name}: verified (sha256 ${m.sha256.slice(0, 16)}…) and cached at ${m.path}`);
    }
    if (sub === 'remove' && arg) {
      if (!(await cache.remove(arg))) throw new ConfigError(`ragwatch models remove: no model "${arg}" in ${cache.dir}`, ['NAME']);
      return out(`${arg}: removed from ${cache.dir}`);
    }
    throw new ConfigError(`ragwatch models: expected pull NAME, add FILE, list or remove NAME\n${modelsCommand.usage}`, ['models']);
  },
};

/** A progress line on a terminal (redrawn), every 10 % elsewhere (logs). */
function progressBar(): (received: number, total: number) => void {
  const tty = process.stderr.isTTY === true;
  const started = Date.now();
  let lastDecile = -1;
  let lastDraw = 0;
  return (received, total) => {
    const share = total > 0 ? received / total : 0;
    const mb = (n: number) => (n / 1e6).toFixed(1);
    const rate = received / Math.max(1, (Date.now() - started) / 1000);
    const line = `${(share * 100).toFixed(1).padStart(5)} %  ${mb(received)} / ${mb(total)} MB  ${mb(rate)} MB/s`;
    if (tty) {
      if (Date.now() - lastDraw < 200 && received < total) return;
      lastDraw = Date.now();
      const width = 30;
      const filled = Math.round(share * width);
      process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${line}`);
    } else if (Math.floor(share * 10) > lastDecile) {
      lastDecile = Math.floor(share * 10);
      process.stderr.write(`${line}\n`);
    }
  };
}
