/**
 * The forwarding plugin stays light on its host (issue 38): importing `ragwatch/plugin` and building
 * a forwarding processor loads capture, redaction, sampling and the HTTP sender — no judge client,
 * no Kafka client, no server, no logger or YAML parser. A new import that drags one in fails here
 * before it shows in the RSS bench (bench/plugin-rss.ts).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('../fixtures/plugin-modules.ts', import.meta.url));

describe('the forwarding plugin’s modules', () => {
  it('loads only the packages capture and forwarding need', () => {
    const out = execFileSync(process.execPath, ['--no-warnings', CHILD], { encoding: 'utf8', env: { ...process.env, RAGWATCH_CONFIG: '' } });
    const packages = JSON.parse(out.trim().split('\n').at(-1)!) as string[];
    for (const heavy of ['yaml', 'pino', 'pino-pretty', 'kafkajs', 'openai', 'hono', '@hono/node-server', '@grpc/grpc-js', '@energetic-ai/core', '@energetic-ai/embeddings', 'protobufjs', 'simple-statistics']) expect(packages).not.toContain(heavy);
    // What it does load, so that the list above cannot pass on an import that failed.
    expect(packages).toEqual(expect.arrayContaining(['@opentelemetry/api', 'zod', 'prom-client']));
  });
});
