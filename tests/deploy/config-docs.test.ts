/**
 * Configuration documentation and examples: docs/configuration.md is generated from the zod schema
 * (every key, with a description), config/ragwatch.yaml mentions every key, and every example
 * config loads.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { renderConfigDoc } from '../../scripts/gen-config-docs.ts';
import { loadConfig } from '../../src/config/load.ts';
import { configSchema } from '../../src/config/schema.ts';
import { ROOT } from '../helpers/process.ts';

interface Node {
  properties?: Record<string, Node>;
  additionalProperties?: Node | boolean;
  anyOf?: Node[];
  items?: Node;
}

const shape = (n: Node | undefined) => Object.keys(n?.properties ?? {}).sort().join(',');

/** Every leaf key path of the config schema (`alerts.metrics.<name>.threshold` for records, `evaluators.[].name` for lists of objects). */
function leafKeys(node: Node, path: string[] = [], parent = ''): string[][] {
  const obj = node.anyOf?.find((a) => a.properties) ?? node;
  if (obj.properties) return Object.entries(obj.properties).flatMap(([k, v]) => leafKeys(v, [...path, k], shape(obj)));
  if (typeof obj.additionalProperties === 'object' && obj.additionalProperties.properties) return leafKeys(obj.additionalProperties, [...path, '<name>']);
  // A list of objects (not one of the same shape as its parent: check rules nest all / any of rules).
  const items = node.items?.anyOf?.find((a) => a.properties) ?? node.items;
  if (items?.properties && shape(items) !== parent) return [path, ...leafKeys(items, [...path, '[]'])];
  return [path];
}

/** The key column of docs/configuration.md for a path (`custom[].name`, `[].name` for a list section). */
const docKey = (path: string[]) => (path.length === 1 ? '[]' : path.slice(1).join('.').replace(/\.?\[\]/g, '[]'));

const keys = leafKeys(z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as Node);

describe('configuration docs', () => {
  const doc = renderConfigDoc();

  it('lists every config key with a type, default column and a description', () => {
    expect(keys.length).toBeGreaterThan(50);
    // Rows by section and key: two sections may share a key (`transport.kafka.tls` and `ingest.kafka.tls`).
    const rows = new Map<string, string>();
    let section = '';
    for (const l of doc.split('\n')) {
      const heading = /^## `([^`]+)`/.exec(l);
      if (heading) section = heading[1]!;
      else if (l.startsWith('| `')) rows.set(`${section}:${l.split(' | ')[0]!.slice(3, -1)}`, l);
    }
    const undocumented: string[] = [];
    for (const path of keys) {
      const row = rows.get(`${path[0]}:${docKey(path)}`);
      const description = row?.split(' | ')[3]?.replace(/\|$/, '').trim();
      if (!description) undocumented.push(path.join('.'));
    }
    expect(undocumented).toEqual([]);
  });

  it('documents every environment override', () => {
    for (const env of ['RAGWATCH_HOST', 'OPENAI_API_KEY', 'RAGWATCH_KAFKA_SASL_PASSWORD']) expect(doc).toContain(`\`${env}\``);
  });

  it('config/ragwatch.yaml mentions every key (as a value, in a flow map, or as a commented-out optional key)', () => {
    const yaml = readFileSync(join(ROOT, 'config', 'ragwatch.yaml'), 'utf8');
    const missing = keys.filter((p) => !p.includes('<name>') && !p.includes('[]') && !new RegExp(`(^|[\\s{,#])${p[p.length - 1]}:`, 'm').test(yaml)).map((p) => p.join('.'));
    expect(missing).toEqual([]);
  });
});

describe('config/examples', () => {
  const files = readdirSync(join(ROOT, 'config', 'examples')).filter((f) => f.endsWith('.yaml'));

  it('has the documented examples', () => {
    expect(files.sort()).toEqual(['all-in-one.yaml', 'evaluators.yaml', 'kafka-collector-scorer.yaml', 'openai.yaml', 'strict-pii.yaml', 'vllm-ollama.yaml']);
  });

  it.each(files)('%s loads and validates', (file) => {
    const config = loadConfig({ env: {}, file: join(ROOT, 'config', 'examples', file) });
    if (file.startsWith('kafka')) expect(config.transport.kind).toBe('kafka');
    if (file === 'openai.yaml' || file === 'vllm-ollama.yaml') expect(config.judge.kind).toBe('llm');
    if (file === 'strict-pii.yaml') expect(Object.values(config.redaction.recognizers).every((r) => r.enabled)).toBe(true);
    if (file === 'evaluators.yaml') expect(config.evaluators.map((e) => e.name)).toEqual(['cites_source', 'no_dosage_advice', 'answer_tone', 'json_answer']);
  });
});
