/**
 * A parser for the subset of Dockerfile syntax ragwatch's Dockerfile uses (FROM … AS, WORKDIR,
 * COPY [--from], RUN, ENV, ARG, USER, EXPOSE, LABEL, ENTRYPOINT/CMD in exec form), so the image
 * smoke test runs exactly the Dockerfile's steps instead of a copy of them that could drift.
 * Anything else is an error rather than silently skipped.
 * @module
 */

/** One build instruction of a stage. */
export type Step =
  | { op: 'WORKDIR'; path: string }
  | { op: 'COPY'; from?: string; sources: string[]; dest: string }
  | { op: 'RUN'; command: string }
  | { op: 'ENV'; vars: Record<string, string> };

/** One `FROM` stage. */
export interface Stage {
  name: string;
  base: string;
  steps: Step[];
  user?: string;
  expose: number[];
  entrypoint?: string[];
  cmd?: string[];
}

function logicalLines(text: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (current === '' && (line.trim() === '' || line.trim().startsWith('#'))) continue;
    if (current !== '' && line.trim().startsWith('#')) continue;
    if (line.endsWith('\\')) {
      current += `${line.slice(0, -1)} `;
      continue;
    }
    out.push((current + line).trim());
    current = '';
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

function execForm(arg: string, line: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(arg);
  } catch {
    throw new Error(`only the exec (JSON array) form is supported: ${line}`);
  }
  if (!Array.isArray(parsed) || !parsed.every((p) => typeof p === 'string')) throw new Error(`expected a JSON array of strings: ${line}`);
  return parsed;
}

function envPairs(arg: string, line: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const m of arg.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("([^"]*)"|\S*)/g)) vars[m[1]!] = m[3] ?? m[2]!;
  if (Object.keys(vars).length === 0) throw new Error(`ENV needs KEY=value pairs: ${line}`);
  return vars;
}

/** Parses a Dockerfile into its stages. */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  for (const line of logicalLines(text)) {
    const [instr = '', ...restParts] = line.split(/\s+/);
    const op = instr.toUpperCase();
    const arg = restParts.join(' ');
    if (op === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(arg);
      if (!m) throw new Error(`cannot parse: ${line}`);
      stages.push({ base: m[1]!, name: m[2] ?? String(stages.length), steps: [], expose: [] });
      continue;
    }
    // VOLUME only marks a mount point for the runtime: nothing to run here.
    if (op === 'ARG' || op === 'LABEL' || op === 'VOLUME') continue;
    const stage = stages[stages.length - 1];
    if (!stage) throw new Error(`instruction before FROM: ${line}`);
    switch (op) {
      case 'WORKDIR':
        stage.steps.push({ op, path: arg });
        break;
      case 'COPY': {
        const words = arg.split(/\s+/);
        let from: string | undefined;
        while (words[0]?.startsWith('--')) {
          const flag = words.shift()!;
          if (flag.startsWith('--from=')) from = flag.slice('--from='.length);
          else if (!flag.startsWith('--chown=') && !flag.startsWith('--chmod=')) throw new Error(`unsupported COPY flag ${flag}`);
        }
        if (words.length < 2) throw new Error(`COPY needs a source and a destination: ${line}`);
        stage.steps.push({ op, from, sources: words.slice(0, -1), dest: words[words.length - 1]! });
        break;
      }
      case 'RUN':
        if (arg.startsWith('[')) throw new Error(`use the shell form of RUN: ${line}`);
        stage.steps.push({ op, command: arg });
        break;
      case 'ENV':
        stage.steps.push({ op, vars: envPairs(arg, line) });
        break;
      case 'USER':
        stage.user = arg;
        break;
      case 'EXPOSE':
        stage.expose.push(...arg.split(/\s+/).map((p) => Number.parseInt(p, 10)));
        break;
      case 'ENTRYPOINT':
        stage.entrypoint = execForm(arg, line);
        break;
      case 'CMD':
        stage.cmd = execForm(arg, line);
        break;
      default:
        throw new Error(`unsupported Dockerfile instruction ${op} (extend scripts/lib/dockerfile.ts): ${line}`);
    }
  }
  if (stages.length === 0) throw new Error('no FROM in the Dockerfile');
  return stages;
}

/** The numeric uid of a `USER uid[:gid]` value, or undefined for a user name. */
export function numericUser(user: string | undefined): { uid: number; gid: number } | undefined {
  const m = /^(\d+)(?::(\d+))?$/.exec(user ?? '');
  if (!m) return undefined;
  const uid = Number(m[1]);
  return { uid, gid: m[2] === undefined ? uid : Number(m[2]) };
}
