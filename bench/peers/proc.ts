/**
 * CPU time and memory of a process and its descendants, read from `/proc` (Linux): what a server
 * costs, whatever its language or its threads and child processes.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of `/proc/<pid>/stat` (USER_HZ: 100 on Linux x86-64 and arm64). */
const TICKS_PER_S = 100;

function stat(pid: number): { ppid: number; cpuS: number } | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), cpuS: (Number(f[11]) + Number(f[12])) / TICKS_PER_S };
  } catch {
    return undefined;
  }
}

/** `pid` and every process below it. */
function tree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const st = stat(Number(e));
    if (st) children.set(st.ppid, [...(children.get(st.ppid) ?? []), Number(e)]);
  }
  const out: number[] = [];
  const todo = [pid];
  while (todo.length > 0) {
    const p = todo.pop()!;
    out.push(p);
    todo.push(...(children.get(p) ?? []));
  }
  return out;
}

/** User + system CPU seconds of `pid` and its descendants (threads included). */
export function cpuSeconds(pid: number): number {
  return tree(pid).reduce((sum, p) => sum + (stat(p)?.cpuS ?? 0), 0);
}

/** Resident set size of `pid` and its descendants, MB. */
export function rssMb(pid: number): number {
  let kb = 0;
  for (const p of tree(pid)) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // exited meanwhile
    }
  }
  return kb / 1024;
}

/** Samples the RSS of a process tree every `intervalMs` until stopped; its peak, MB. */
export function rssSampler(pid: number, intervalMs = 250): { peak: () => number; stop: () => number } {
  let peak = rssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), intervalMs);
  return {
    peak: () => peak,
    stop: () => {
      clearInterval(timer);
      return (peak = Math.max(peak, rssMb(pid)));
    },
  };
}
