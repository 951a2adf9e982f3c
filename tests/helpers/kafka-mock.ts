/**
 * A real Kafka-protocol broker for tests: librdkafka's mock cluster, run by Debian's `kcat`
 * (`kcat -b 127.0.0.1:1 -X test.mock.num.brokers=3 -d mock -G keepalive keepalive`), started and
 * killed by PID. Topics auto-create with 4 partitions; no CreateTopics, no idempotent producer, no SASL.
 *
 * The mock picks new random ports on every start, and there is no property to fix them (librdkafka
 * 2.0.2 only has `test.mock.num.brokers` and `test.mock.broker.rtt`). For "the cluster comes back on
 * the same address", {@link startStableKafka} fronts it with a TCP proxy that owns one fixed port per
 * broker id and rewrites the broker addresses in Metadata and FindCoordinator responses to those
 * ports; after a restart it forwards to the new cluster's ports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { Kafka, logLevel } from 'kafkajs';
import { which } from './prometheus.ts';

/**
 * True when `kcat` is installed. Missing locally: a loud warning and false (the caller skips).
 * Missing under CI=true: throws, so the suite fails instead of silently skipping.
 */
export function haveKcat(suite: string): boolean {
  if (which('kcat')) return true;
  const msg = `${suite}: kcat is not installed (apt-get install -y kcat) — the Kafka mock cluster needs it`;
  if (process.env.CI === 'true') throw new Error(`${msg}; required under CI=true`);
  console.warn(`\n!!!!! SKIPPING ${msg} !!!!!\n`);
  return false;
}

/** A running mock cluster. */
export interface KafkaMock {
  /** `host:port` of each broker, as the cluster advertises them. */
  brokers: string[];
  pid: number;
  /** Kills the kcat process (all brokers die at once). Idempotent. */
  stop(): Promise<void>;
}

/** Starts a 3-broker mock cluster and resolves once it printed its bootstrap list. */
export function startKafkaMock(numBrokers = 3, timeoutMs = 10_000): Promise<KafkaMock> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn('kcat', ['-b', '127.0.0.1:1', '-X', `test.mock.num.brokers=${numBrokers}`, '-d', 'mock', '-G', 'keepalive', 'keepalive'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let done = false;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const stop = async (): Promise<void> => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    };
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      void stop();
      reject(new Error(`kcat mock cluster did not start within ${timeoutMs} ms: ${stderr.slice(-500)}`));
    }, timeoutMs);
    child.once('error', (err) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      reject(err);
    });
    child.stderr!.on('data', (d: Buffer) => {
      if (done) return; // keep the pipe drained, stop accumulating
      stderr += d.toString();
      const m = /bootstrap\.servers=([0-9.:,]+)/.exec(stderr);
      if (!m) return;
      done = true;
      clearTimeout(timer);
      resolve({ brokers: m[1]!.split(','), pid: child.pid!, stop });
    });
    child.stderr!.resume();
  });
}

/** Node id → advertised address, asked from the cluster itself (the bootstrap order is not guaranteed). */
async function describe(brokers: string[]): Promise<Map<number, { host: string; port: number }>> {
  const admin = new Kafka({ clientId: 'kafka-mock-helper', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const { brokers: list } = await admin.describeCluster();
    return new Map(list.map((b) => [b.nodeId, { host: b.host, port: b.port }]));
  } finally {
    await admin.disconnect();
  }
}

/** A mock cluster behind fixed addresses that survive {@link StableKafka.restart}. */
export interface StableKafka {
  /** Fixed `127.0.0.1:port` bootstrap list (one per broker id). */
  brokers: string[];
  /** The kcat PID currently serving (undefined while killed). */
  readonly pid: number | undefined;
  /** Kills the cluster: existing connections drop, new ones are refused until `restart()`. */
  kill(): Promise<void>;
  /** Starts a fresh (empty) cluster behind the same addresses. */
  restart(): Promise<void>;
  /** Kills the cluster and closes the proxy. Idempotent. */
  stop(): Promise<void>;
}

const API_METADATA = 3;
const API_FIND_COORDINATOR = 10;

function readString(buf: Buffer, off: number): { value: string | null; next: number } {
  const len = buf.readInt16BE(off);
  if (len < 0) return { value: null, next: off + 2 };
  return { value: buf.toString('utf8', off + 2, off + 2 + len), next: off + 2 + len };
}

function encodeString(s: string): Buffer {
  const b = Buffer.alloc(2 + Buffer.byteLength(s));
  b.writeInt16BE(Buffer.byteLength(s), 0);
  b.write(s, 2);
  return b;
}

/** Starts a mock cluster behind a metadata-rewriting proxy with fixed ports. */
export async function startStableKafka(numBrokers = 3): Promise<StableKafka> {
  let mock: KafkaMock | undefined = await startKafkaMock(numBrokers);
  let backends = await describe(mock.brokers);
  const fixedPort = new Map<number, number>();
  const servers: Server[] = [];
  const sockets = new Set<Socket>();

  /** Rewrites broker addresses in a response frame (without the 4-byte size); returns the new frame. */
  const rewrite = (frame: Buffer, apiKey: number, version: number): Buffer => {
    if (apiKey === API_METADATA && version <= 2) {
      let off = 4; // correlation id
      const count = frame.readInt32BE(off);
      off += 4;
      const parts: Buffer[] = [frame.subarray(0, off)];
      for (let i = 0; i < count; i++) {
        const nodeId = frame.readInt32BE(off);
        const host = readString(frame, off + 4);
        const port = frame.readInt32BE(host.next);
        let next = host.next + 4;
        let rack: Buffer = Buffer.alloc(0);
        if (version >= 1) {
          const r = readString(frame, next);
          rack = frame.subarray(next, r.next);
          next = r.next;
        }
        if (host.value) backends.set(nodeId, { host: host.value, port });
        const fixed = fixedPort.get(nodeId) ?? port;
        const head = Buffer.alloc(4);
        head.writeInt32BE(nodeId, 0);
        const portBuf = Buffer.alloc(4);
        portBuf.writeInt32BE(fixed, 0);
        parts.push(head, encodeString('127.0.0.1'), portBuf, rack);
        off = next;
      }
      parts.push(frame.subarray(off));
      return Buffer.concat(parts);
    }
    if (apiKey === API_FIND_COORDINATOR && version <= 2) {
      let off = 4;
      if (version >= 1) off += 4; // throttle time
      off += 2; // error code
      if (version >= 1) off = readString(frame, off).next; // error message
      const nodeId = frame.readInt32BE(off);
      const host = readString(frame, off + 4);
      const port = frame.readInt32BE(host.next);
      const fixed = fixedPort.get(nodeId) ?? port;
      const portBuf = Buffer.alloc(4);
      portBuf.writeInt32BE(fixed, 0);
      return Buffer.concat([frame.subarray(0, off + 4), encodeString('127.0.0.1'), portBuf, frame.subarray(host.next + 4)]);
    }
    return frame;
  };

  const onConnection = (nodeId: number, client: Socket): void => {
    const target = mock ? backends.get(nodeId) : undefined;
    if (!target) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    const requests = new Map<number, { apiKey: number; version: number }>();
    let fromClient = Buffer.alloc(0);
    let fromServer = Buffer.alloc(0);
    client.on('data', (d: Buffer) => {
      fromClient = Buffer.concat([fromClient, d]);
      while (fromClient.length >= 4 && fromClient.length >= 4 + fromClient.readInt32BE(0)) {
        const size = fromClient.readInt32BE(0);
        const frame = fromClient.subarray(0, 4 + size);
        fromClient = fromClient.subarray(4 + size);
        requests.set(frame.readInt32BE(8), { apiKey: frame.readInt16BE(4), version: frame.readInt16BE(6) });
        upstream.write(frame);
      }
    });
    upstream.on('data', (d: Buffer) => {
      fromServer = Buffer.concat([fromServer, d]);
      while (fromServer.length >= 4 && fromServer.length >= 4 + fromServer.readInt32BE(0)) {
        const size = fromServer.readInt32BE(0);
        const body = fromServer.subarray(4, 4 + size);
        fromServer = fromServer.subarray(4 + size);
        const req = requests.get(body.readInt32BE(0));
        requests.delete(body.readInt32BE(0));
        const out = req ? rewrite(body, req.apiKey, req.version) : body;
        const len = Buffer.alloc(4);
        len.writeInt32BE(out.length, 0);
        client.write(Buffer.concat([len, out]));
      }
    });
    const close = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', close);
    upstream.on('close', close);
    client.on('error', close);
    upstream.on('error', close);
  };

  for (let nodeId = 1; nodeId <= numBrokers; nodeId++) {
    const server = createServer((s) => onConnection(nodeId, s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const addr = server.address();
    fixedPort.set(nodeId, typeof addr === 'object' && addr ? addr.port : 0);
    servers.push(server);
  }

  const dropConnections = (): void => {
    for (const s of sockets) s.destroy();
    sockets.clear();
  };
  const kill = async (): Promise<void> => {
    const m = mock;
    mock = undefined;
    dropConnections();
    await m?.stop();
  };
  let stopped: Promise<void> | undefined;
  return {
    brokers: [...fixedPort.values()].map((p) => `127.0.0.1:${p}`),
    get pid() {
      return mock?.pid;
    },
    kill,
    async restart() {
      await kill();
      const next = await startKafkaMock(numBrokers);
      backends = await describe(next.brokers);
      mock = next;
    },
    stop: () =>
      (stopped ??= (async () => {
        await kill();
        await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
      })()),
  };
}
