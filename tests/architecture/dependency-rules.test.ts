/**
 * The one-way house (DESIGN §4, docs/architecture.md): the committed dependency-cruiser rules hold on
 * src/, the rooms of src/ form no cycle, and the rules bite — a fixture tree with one deliberate
 * upward import per rule is reported, with the rule's comment, by the same CLI `npm run lint` runs.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules/.bin/depcruise');
const run = promisify(execFile);

interface Cruise {
  summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> };
  modules: Array<{ source: string; dependencies: Array<{ resolved: string }> }>;
}

/** Runs the depcruise CLI in `cwd` on its `src`, as `npm run lint` does; resolves with its exit code and output. */
async function depcruise(cwd: string, outputType: 'json' | 'err-long'): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run(DEPCRUISE, ['src', '--config', CONFIG, '--output-type', outputType], { cwd, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout };
  } catch (err) {
    const e = err as { code?: number; stdout?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '' };
  }
}

/** The room of a module: the top-level folder or file of src/ it lives in. */
function roomOf(path: string): string | undefined {
  const m = /^src\/([^/]+)(\/|$)/.exec(path);
  if (!m) return undefined;
  return m[2] === '/' ? m[1] : m[1]!.replace(/\.ts$/, '');
}

/** Rooms that reach each other (strongly connected components of more than one room). */
function roomCycles(cruise: Cruise): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const m of cruise.modules) {
    const from = roomOf(m.source);
    if (!from) continue;
    for (const d of m.dependencies) {
      const to = roomOf(d.resolved);
      if (to && to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const comp: string[] = [];
      let w: string;
      do comp.push((w = stack.pop()!));
      while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe('src/ keeps the one-way house', () => {
  it('breaks no rule of .dependency-cruiser.cjs, and no two rooms reach each other', async () => {
    // The JSON reporter exits 0 whatever it found (only the err reporters of `npm run lint` fail): read its summary.
    const { stdout } = await depcruise(ROOT, 'json');
    const cruise = JSON.parse(stdout) as Cruise;
    expect(cruise.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
    expect(cruise.modules.filter((m) => m.source.startsWith('src/')).length).toBeGreaterThan(200);
    expect(roomCycles(cruise)).toEqual([]);
  }, 60_000);

  it('finds a room cycle when there is one (the check itself can fail)', () => {
    const cruise: Cruise = {
      summary: { violations: [] },
      modules: [
        { source: 'src/metrics/a.ts', dependencies: [{ resolved: 'src/probes/b.ts' }] },
        { source: 'src/probes/b.ts', dependencies: [{ resolved: 'src/store/c.ts' }] },
        { source: 'src/store/c.ts', dependencies: [{ resolved: 'src/metrics/d.ts' }, { resolved: 'src/triplet.ts' }] },
      ],
    };
    expect(roomCycles(cruise)).toEqual([['metrics', 'probes', 'store']]);
  });
});

describe('the rules bite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ragwatch-depcruise-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (path: string, body: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), body);
  };
  // One deliberate wrong import per rule, each in a tree that is otherwise fine.
  const wrong: Record<string, [from: string, to: string]> = {
    'ground-imports-nothing-above': ['src/config/load.ts', '../probes/suite.ts'],
    'config-is-the-floor': ['src/config/schema.ts', '../telemetry/instruments.ts'],
    'wire-contract-is-self-contained': ['src/triplet.ts', './log.ts'],
    'registry-reads-only-the-wire-contract': ['src/metric-registry.ts', './config/schema.ts'],
    'trail-stands-alone': ['src/trail/trace-ring.ts', '../log.ts'],
    'stages-import-no-consumer': ['src/capture/capture.ts', '../metrics/quality.ts'],
    'stages-are-independent': ['src/sampling/create.ts', '../transport/memory.ts'],
    'judges-use-only-capture': ['src/judges/create.ts', '../sampling/create.ts'],
    'assembly-does-not-judge': ['src/assembly/span-consumer.ts', '../judges/create.ts'],
    'evaluators-stand-alone': ['src/evaluators/create.ts', '../judges/llm/client.ts'],
    'scorer-imports-no-consumer': ['src/scorer/scorer.ts', '../weakness/monitor.ts'],
    'metrics-imports-no-capability': ['src/metrics/rules.ts', '../probes/rules.ts'],
    'store-knows-no-capability': ['src/store/review-store.ts', '../calibration/types.ts'],
    'capabilities-are-independent': ['src/weakness/monitor.ts', '../exams/monitor.ts'],
    'exams-use-probes-and-weakness-only': ['src/exams/monitor.ts', '../calibration/types.ts'],
    'consumers-import-no-server-or-role': ['src/probes/prober.ts', '../roles/serve.ts'],
    'server-starts-nothing': ['src/server/api-app.ts', '../roles/quality.ts'],
    'roles-are-below-the-cli': ['src/roles/start.ts', '../commands/start.ts'],
    'every-room-has-a-layer': ['src/alerting/change.ts', '../triplet.ts'],
  };
  const modules = new Set(Object.values(wrong).flatMap(([from, to]) => [from, join(dirname(from), to)]));
  for (const m of modules) file(m, 'export const x = 1;\n');
  for (const [from, to] of Object.values(wrong)) file(from, `import { x as y } from '${to}';\nexport const x = y;\n`);
  // And a cycle inside one room.
  file('src/probes/audit.ts', "import { r } from './runner.ts';\nexport const a = r;\n");
  file('src/probes/runner.ts', "import { a } from './audit.ts';\nexport const r = () => a;\n");

  it('reports each deliberate violation by its rule', async () => {
    const { stdout } = await depcruise(dir, 'json');
    const found = new Map<string, string[]>();
    for (const v of (JSON.parse(stdout) as Cruise).summary.violations) found.set(v.rule.name, [...(found.get(v.rule.name) ?? []), `${v.from} → ${v.to}`]);
    for (const [rule, [from, to]] of Object.entries(wrong)) expect(found.get(rule), rule).toContain(`${from} → ${join(dirname(from), to)}`);
    expect(found.get('no-circular')).toEqual(expect.arrayContaining(['src/probes/audit.ts → src/probes/runner.ts']));
    expect([...found.keys()].sort()).toEqual([...Object.keys(wrong), 'no-circular'].sort());
  }, 60_000);

  it('prints the rule’s comment, so a failing CI says why', async () => {
    const { code, stdout } = await depcruise(dir, 'err-long');
    expect(code).not.toBe(0);
    expect(stdout).toContain('error metrics-imports-no-capability: src/metrics/rules.ts → src/probes/rules.ts');
    expect(stdout.replace(/\s+/g, ' ')).toContain('metrics/ (windows, thresholds, the alert evaluator, rule generation) is one consumer among others');
  }, 60_000);

  it('is drawn in docs/architecture.svg: one box per room of src/ (npm run docs:architecture)', () => {
    const svg = readFileSync(join(ROOT, 'docs/architecture.svg'), 'utf8').replaceAll('&#45;', '-');
    const drawn = [...svg.matchAll(/<title>(src\/[^<>]*?)<\/title>/g)].filter((m) => !m[1]!.includes('&gt;')).map((m) => roomOf(m[1]!));
    const rooms = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory() || e.name.endsWith('.ts'))
      .map((e) => e.name.replace(/\.ts$/, ''));
    expect(new Set(drawn)).toEqual(new Set(rooms));
  });

  it('is the configuration npm run lint uses', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.lint).toContain('depcruise src');
    expect(pkg.scripts.lint).toContain('knip');
  });
});
