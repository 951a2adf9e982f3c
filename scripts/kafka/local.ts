/**
 * `npm run kafka:local`: a real Apache Kafka on this machine for trying split mode (docs/kafka.md,
 * "Split mode on one machine"). Resolves the pinned broker jars from Maven Central once (cached in
 * ~/.cache/ragwatch/kafka), starts KRaft nodes on loopback, prints the settings for `ragwatch
 * collector` / `assembler` / `scorer`, and stops the nodes cleanly on Ctrl-C. Data lives in a
 * temporary directory removed at the end. Needs Java 17+ and Maven (`mvn`) the first time.
 *
 *   npm run kafka:local -- [--nodes 1|3] [--port 9092] [--version 3.9.2]
 *
 * --port: the first node's client port (the others take the next ones); 0 picks free ports.
 */
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { resolveJars, startCluster } from './cluster.ts';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1' },
    port: { type: 'string', default: '9092' },
    version: { type: 'string', default: readFileSync(new URL('./DEFAULT_VERSION', import.meta.url), 'utf8').trim() },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log('npm run kafka:local -- [--nodes 1|3] [--port 9092] [--version 3.9.2]   (docs/kafka.md)');
  process.exit(0);
}
const nodes = Number(values.nodes);
if (nodes !== 1 && nodes !== 3) {
  console.error(`--nodes must be 1 or 3 (got ${values.nodes})`);
  process.exit(2);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_533) {
  console.error(`--port must be a port number, or 0 for free ports (got ${values.port})`);
  process.exit(2);
}

console.error(`kafka:local: Apache Kafka ${values.version}, ${nodes} node(s); the jars are resolved once into ~/.cache/ragwatch/kafka`);
let libsDir: string;
try {
  libsDir = resolveJars(values.version);
} catch (err) {
  console.error(`kafka:local: could not get the Kafka ${values.version} jars (needs mvn and Maven Central the first time): ${(err as Error).message}`);
  process.exit(1);
}
const started = Date.now();
const cluster = await startCluster({
  libsDir,
  version: values.version,
  nodes,
  ...(port > 0 ? { plainPorts: Array.from({ length: nodes }, (_, i) => port + i) } : {}),
  heapMb: 512,
}).catch((err: unknown) => {
  console.error(`kafka:local: Kafka did not start: ${(err as Error).message}`);
  if (port > 0) console.error(`(is port ${port} taken? try --port 0)`);
  process.exit(1);
});
const brokers = cluster.brokers.join(',');
console.log(`
Apache Kafka ${cluster.version} is up (${nodes} node(s), ${((Date.now() - started) / 1000).toFixed(1)} s): ${brokers}
Logs: ${Array.from({ length: nodes }, (_, i) => cluster.logFile(i)).join(' ')}

Point the split roles at it (each in its own terminal; docs/kafka.md "Split mode on one machine"):

  export RAGWATCH_TRANSPORT=kafka RAGWATCH_KAFKA_BROKERS=${brokers}
  export RAGWATCH_REDACTION_HMAC_KEY=local-split-mode-key-0123456789abcdef
  RAGWATCH_HTTP_PORT=9464 npx ragwatch collector                                   # OTLP on 4318/4317
  RAGWATCH_HTTP_PORT=9465 RAGWATCH_OTLP_PORT=0 RAGWATCH_OTLP_GRPC_PORT=0 npx ragwatch assembler
  RAGWATCH_HTTP_PORT=9466 RAGWATCH_OTLP_PORT=0 RAGWATCH_OTLP_GRPC_PORT=0 npx ragwatch scorer    # UI and /metrics on 9466

Ctrl-C stops Kafka (its data is removed).
`);

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.error(`\nkafka:local: ${signal}: stopping Kafka…`);
  await cluster.stop(15_000);
  console.error('kafka:local: stopped');
  process.exit(0);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
// Keeps the process alive until a signal (the JVMs are children of run-node.sh, watched through stdin).
setInterval(() => undefined, 1 << 30);
