/**
 * The forwarding plugin stays light on its host (issue 38): importing `ragwatch/plugin` and building
 * a forwarding processor loads capture, redaction, sampling and the HTTP sender — no judge client,
 * no Kafka client, no server, no logger or YAML parser. A new import that drags one in fails here
 * before it shows in the RSS bench (bench/plugin-rss.ts). The main entry (`ragwatch`, what an editor's
 * auto-import writes) loads exactly the same modules (issue 47).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('../fixtures/plugin-modules.ts', import.meta.url));
const HEAVY = ['yaml', 'pino', 'pino-pretty', 'kafkajs', 'openai', 'hono', '@hono/node-server', '@grpc/grpc-js', '@energetic-ai/core', '@energetic-ai/embeddings', 'protobufjs', 'simple-statistics'];

function loaded(entry: 'plugin' | 'main'): { packages: string[]; modules: string[] } {
  const out = execFileSync(process.execPath, ['--no-warnings', CHILD, entry], { encoding: 'utf8', env: { ...process.env, RAGWATCH_CONFIG: '' } });
  return JSON.parse(out.trim().split('\n').at(-1)!) as { packages: string[]; modules: string[] };
}

describe('the forwarding plugin’s modules', () => {
  it('loads only the packages capture and forwarding need', () => {
    const { packages } = loaded('plugin');
    for (const heavy of HEAVY) expect(packages).not.toContain(heavy);
    // What it does load, so that the list above cannot pass on an import that failed.
    expect(packages).toEqual(expect.arrayContaining(['@opentelemetry/api', 'zod', 'prom-client']));
  });

  it('the main entry loads the same packages and modules as the plugin entry', () => {
    const plugin = loaded('plugin');
    const main = loaded('main');
    expect(main.packages).toEqual(plugin.packages);
    expect(main.modules.filter((m) => m !== 'src/index.ts')).toEqual(plugin.modules.filter((m) => m !== 'src/plugin.ts'));
    expect(main.modules).toContain('src/roles/span-processor.ts');
  });
});
