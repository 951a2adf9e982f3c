/**
 * Free loopback ports for peers started as child processes (Kafka nodes, a Collector, Prometheus,
 * Phoenix): chosen below the kernel's ephemeral range so nothing else takes them before the peer binds.
 * @module
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The kernel's ephemeral port range: ports outgoing connections and `listen(0)` take. */
function ephemeralRange(): [number, number] {
  try {
    const [lo, hi] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (lo && hi) return [lo, hi];
  } catch {
    /* not Linux: the IANA range */
  }
  return [49152, 65535];
}

/**
 * `count` loopback ports free now, chosen below the ephemeral range: the program that binds them
 * (a JVM, a Collector, Prometheus) does so seconds later, and a port from `listen(0)` could meanwhile be
 * taken by any outgoing connection or by another test's `listen(0)` (a clean-clone CI lost a Kafka node
 * to "Address already in use" on port 38005 that way).
 */
export async function freePorts(count: number): Promise<number[]> {
  const [ephemeralLo] = ephemeralRange();
  const lo = 15_000;
  const hi = Math.max(lo + 1_000, ephemeralLo - 1);
  const chosen = new Set<number>();
  for (let tries = 0; chosen.size < count; tries++) {
    if (tries > count * 50) throw new Error(`kafka: no ${count} free loopback ports between ${lo} and ${hi}`);
    const port = lo + Math.floor(Math.random() * (hi - lo));
    if (chosen.has(port)) continue;
    const s = createServer();
    const ok = await new Promise<boolean>((resolve) => s.once('error', () => resolve(false)).listen(port, '127.0.0.1', () => resolve(true)));
    if (ok) {
      chosen.add(port);
      await new Promise<void>((r) => s.close(() => r()));
    }
  }
  return [...chosen];
}
