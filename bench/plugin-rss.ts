/**
 * The plugin's cost to its host (issue 38), per mode: the RSS of a host service (bench/plugin-host.ts:
 * NodeSDK, 20 RAG traces) with ragwatch's span processor, minus the same host without it, in the same
 * run — median of 3 processes per mode:
 *  - `plugin_host_rss_mb_forward`: forwarding sampled triplets to a ragwatch endpoint (a local
 *    receiver here), the processor imported from `ragwatch/plugin`; target < 30 MB, gated;
 *  - `plugin_host_rss_mb_forward_main`: the same with the processor imported from the main entry
 *    (`import { RagwatchSpanProcessor } from 'ragwatch'`, what an editor's auto-import writes); target
 *    < 30 MB, gated;
 *  - `plugin_host_rss_mb_inprocess`: judging in the host with the embedded judge on one worker thread;
 *  - `plugin_host_rss_mb_kafka`: producing to Kafka (a local broker) from its own thread.
 * Needs the built package (`npm run build`): the host imports `ragwatch/plugin` as users do.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { haveKafka, startKafkaCluster } from '../tests/helpers/kafka-broker.ts';
import { emit, median, QUICK } from './lib.ts';

const HOST = fileURLToPath(new URL('./plugin-host.ts', import.meta.url));
if (!existsSync(new URL('../dist/plugin.js', import.meta.url))) throw new Error('bench/plugin-rss.ts needs the built package: npm run build');
const RUNS = QUICK ? 3 : 5;

let received = 0;
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    received += (JSON.parse(body) as { triplets: unknown[] }).triplets.length;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
// The Kafka mode needs a broker (a local KRaft node); without Java it is skipped (an error under CI=true).
const kafka = haveKafka('bench plugin-rss (Kafka mode)') ? await startKafkaCluster() : undefined;

function host(mode: string): Promise<number> {
  return new Promise((resolve, reject) => {
    // The endpoint only for the forwarding host: with one set, the plugin forwards (its default).
    const env = { ...process.env, ...(mode.startsWith('forward') ? { RAGWATCH_ENDPOINT: `http://127.0.0.1:${(receiver.address() as { port: number }).port}` } : {}), ...(kafka ? { RAGWATCH_KAFKA_BROKERS: kafka.brokers.join(',') } : {}) };
    delete (env as Record<string, string | undefined>).RAGWATCH_CONFIG;
    const child = spawn(process.execPath, ['--expose-gc', '--no-warnings', HOST, mode], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{')) return reject(new Error(`host ${mode} exited ${code}: ${out}`));
      resolve((JSON.parse(line) as { rssMb: number }).rssMb);
    });
  });
}

const rss: Record<string, number[]> = { none: [], forward: [], 'forward-main': [], inprocess: [], kafka: [] };
for (let i = 0; i < RUNS; i++) {
  for (const mode of ['none', 'forward', 'forward-main', 'inprocess', ...(kafka ? ['kafka'] : [])]) rss[mode]!.push(await host(mode));
}
receiver.close();
await kafka?.stop();
if (received < RUNS * 40) throw new Error(`the forwarding hosts delivered ${received} triplets, expected ${RUNS * 40}`);
const base = median(rss.none!);
const added = (mode: string) => median(rss[mode]!) - base;
console.error(`plugin host RSS: baseline ${base.toFixed(0)} MB; + forwarding ${added('forward').toFixed(1)} MB (from 'ragwatch': ${added('forward-main').toFixed(1)} MB); + in-process judge ${added('inprocess').toFixed(1)} MB${kafka ? `; + Kafka ${added('kafka').toFixed(1)} MB` : ''} (median of ${RUNS})`);
emit({ bench: 'plugin', figure: 'plugin_host_rss_mb_forward', value: added('forward'), unit: 'MB', baseline: base, ratio: null });
emit({ bench: 'plugin', figure: 'plugin_host_rss_mb_forward_main', value: added('forward-main'), unit: 'MB', baseline: base, ratio: null });
emit({ bench: 'plugin', figure: 'plugin_host_rss_mb_inprocess', value: added('inprocess'), unit: 'MB', baseline: base, ratio: null });
if (kafka) emit({ bench: 'plugin', figure: 'plugin_host_rss_mb_kafka', value: added('kafka'), unit: 'MB', baseline: base, ratio: null });
