/**
 * Generates `docs/configuration.md` from the zod schema, so it cannot drift from the code:
 * keys, types, allowed values and defaults come from `z.toJSONSchema(configSchema)`; the
 * environment overrides from `ENV_OVERRIDES`; descriptions from `.describe()`/`.meta()` when a key
 * has one, else from the key's JSDoc comment in `src/config/sections/*.ts` (read with the
 * TypeScript parser, since JSDoc is not visible at run time).
 *
 * `--check` writes nothing and exits 1 when the committed file differs.
 * @module
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { z } from 'zod';
import { ENV_OVERRIDES } from '../src/config/load.ts';
import { configSchema } from '../src/config/schema.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECTIONS_DIR = join(ROOT, 'src', 'config', 'sections');
/** The generated file, relative to the repository root. */
export const CONFIG_DOC = join('docs', 'configuration.md');

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  pattern?: string;
  format?: string;
}

// ---------------------------------------------------------------- JSDoc from the section sources

function jsDocOf(node: ts.Node, file: ts.SourceFile): string | undefined {
  const ranges = ts.getLeadingCommentRanges(file.text, node.getFullStart()) ?? [];
  const doc = ranges.map((r) => file.text.slice(r.pos, r.end)).filter((c) => c.startsWith('/**')).pop();
  if (!doc) return undefined;
  return doc
    .replace(/^\/\*\*|\*\/$/g, '')
    .split('\n')
    .map((l) => l.replace(/^\s*\* ?/, '').trim())
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A top-level `const` of a section file: its initializer and the file it is in (for its JSDoc). */
interface ConstDecl {
  init: ts.Expression;
  file: ts.SourceFile;
}

/**
 * Collects `path → JSDoc` for every object key reachable from `expr`, resolving consts of the same
 * file first, then those of the other section files (a schema one section imports from another,
 * e.g. `ingest.kafka.tls` reusing `transport.ts`'s `kafkaTls`, keeps its JSDoc).
 */
function collectDocs(expr: ts.Expression, path: string[], file: ts.SourceFile, consts: Map<string, ts.Expression>, out: Map<string, string>, depth = 0, shared: Map<string, ConstDecl> = new Map()): void {
  if (depth > 20) return;
  if (ts.isIdentifier(expr)) {
    const local = consts.get(expr.text);
    if (local) return collectDocs(local, path, file, consts, out, depth + 1, shared);
    const other = shared.get(expr.text);
    if (other) collectDocs(other.init, path, other.file, constsOf(other.file), out, depth + 1, shared);
    return;
  }
  if (!ts.isCallExpression(expr) || !ts.isPropertyAccessExpression(expr.expression)) return;
  const method = expr.expression.name.text;
  const [first, second] = expr.arguments;
  if (method === 'object' && first && ts.isObjectLiteralExpression(first)) {
    for (const prop of first.properties) {
      if (!ts.isPropertyAssignment(prop) || !(ts.isIdentifier(prop.name) || ts.isStringLiteral(prop.name))) continue;
      const keyPath = [...path, prop.name.text];
      const doc = jsDocOf(prop, file);
      if (doc) out.set(keyPath.join('.'), doc);
      collectDocs(prop.initializer, keyPath, file, consts, out, depth + 1, shared);
    }
    return;
  }
  if ((method === 'record' || method === 'partialRecord' || method === 'looseRecord') && second) return collectDocs(second, [...path, '<name>'], file, consts, out, depth + 1, shared);
  if (method === 'array' && first) return collectDocs(first, [...path, '[]'], file, consts, out, depth + 1, shared);
  if ((method === 'union' || method === 'discriminatedUnion') && first) return;
  // .default(), .optional(), .prefault(), .strict(), .refine(), ...: the schema is the receiver.
  collectDocs(expr.expression.expression, path, file, consts, out, depth + 1, shared);
}

/** The top-level consts of a section file, by name. */
function constsOf(file: ts.SourceFile): Map<string, ts.Expression> {
  const consts = new Map<string, ts.Expression>();
  for (const stmt of file.statements) {
    if (!ts.isVariableStatement(stmt)) continue;
    for (const decl of stmt.declarationList.declarations) if (ts.isIdentifier(decl.name) && decl.initializer) consts.set(decl.name.text, decl.initializer);
  }
  return consts;
}

/** `section.key.sub → JSDoc` for every section file, keyed by the top-level key schema.ts gives it. */
export function sectionDocs(): Map<string, string> {
  const schemaFile = join(ROOT, 'src', 'config', 'schema.ts');
  const schemaSrc = ts.createSourceFile(schemaFile, readFileSync(schemaFile, 'utf8'), ts.ScriptTarget.Latest, true);
  // `server: serverSection.prefault({})` → serverSection is section `server`; import path gives the file.
  const sectionKey = new Map<string, string>();
  const importFile = new Map<string, string>();
  schemaSrc.forEachChild(function visit(node): void {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && node.importClause?.namedBindings && ts.isNamedImports(node.importClause.namedBindings)) {
      for (const el of node.importClause.namedBindings.elements) importFile.set(el.name.text, join(ROOT, 'src', 'config', node.moduleSpecifier.text));
    }
    if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name)) {
      let e: ts.Node = node.initializer;
      while (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression)) e = e.expression.expression;
      if (ts.isIdentifier(e) && e.text.endsWith('Section')) sectionKey.set(e.text, node.name.text);
    }
    node.forEachChild(visit);
  });
  const docs = new Map<string, string>();
  const files = new Map<string, ts.SourceFile>();
  const shared = new Map<string, ConstDecl>();
  for (const path of new Set(importFile.values())) {
    if (!path.startsWith(SECTIONS_DIR) || !existsSync(path)) continue;
    const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    files.set(path, file);
    for (const [name, init] of constsOf(file)) shared.set(name, { init, file });
  }
  for (const [varName, key] of sectionKey) {
    const file = files.get(importFile.get(varName) ?? '');
    if (!file) continue;
    const consts = constsOf(file);
    const stmt = file.statements.find((st) => ts.isVariableStatement(st) && st.declarationList.declarations.some((d) => ts.isIdentifier(d.name) && d.name.text === varName));
    const sectionDoc = stmt ? jsDocOf(stmt, file) : undefined;
    if (sectionDoc) docs.set(key, sectionDoc);
    const root = consts.get(varName);
    if (root) collectDocs(root, [key], file, consts, docs, 0, shared);
  }
  return docs;
}

// ---------------------------------------------------------------- rendering

function typeOf(s: JsonSchema): string {
  if (s.enum) return s.enum.map((v) => `\`${String(v)}\``).join(' | ');
  if (s.const !== undefined) return `\`${String(s.const)}\``;
  if (s.anyOf) return s.anyOf.map(typeOf).join(' | ');
  const t = Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? 'any');
  if (t === 'array') return `${s.items ? typeOf(s.items) : 'any'}[]`;
  const bounds: string[] = [];
  if (s.minimum !== undefined && s.minimum > -Number.MAX_SAFE_INTEGER) bounds.push(`≥ ${s.minimum}`);
  if (s.exclusiveMinimum !== undefined) bounds.push(`> ${s.exclusiveMinimum}`);
  if (s.maximum !== undefined && s.maximum < Number.MAX_SAFE_INTEGER) bounds.push(`≤ ${s.maximum}`);
  if (s.minLength !== undefined && s.minLength > 0) bounds.push(`length ≥ ${s.minLength}`);
  if (s.format) bounds.push(s.format);
  return bounds.length ? `${t} (${bounds.join(', ')})` : t;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function defaultOf(s: JsonSchema): string {
  if (s.default === undefined) return '—';
  const d = s.default;
  if (typeof d === 'object' && d !== null && Object.keys(d).length > 0 && !Array.isArray(d)) return '(see below)';
  return `\`${cell(JSON.stringify(d))}\``;
}

interface Row {
  key: string;
  schema: JsonSchema;
}

function leaves(s: JsonSchema, path: string, out: Row[], parentKeys = ''): void {
  const obj = s.anyOf?.find((a) => a.properties) ?? s;
  if (obj.properties) {
    const keys = Object.keys(obj.properties).sort().join(',');
    for (const [k, v] of Object.entries(obj.properties)) leaves(v, `${path}.${k}`, out, keys);
    return;
  }
  // A list of objects (evaluators, their examples): the list's row, then its items' keys as `list[].key`;
  // not a list of the same shape as its parent (check rules nest `all` / `any` of rules).
  const items = s.items?.anyOf?.find((a) => a.properties) ?? s.items;
  if (items?.properties && Object.keys(items.properties).sort().join(',') !== parentKeys) {
    out.push({ key: path, schema: s });
    const keys = Object.keys(items.properties).sort().join(',');
    for (const [k, v] of Object.entries(items.properties)) leaves(v, `${path}[].${k}`, out, keys);
    return;
  }
  if (typeof obj.additionalProperties === 'object' && obj.additionalProperties.properties) {
    out.push({ key: path, schema: { ...s, type: 'object' } });
    leaves(obj.additionalProperties, `${path}.<name>`, out);
    return;
  }
  out.push({ key: path, schema: s });
}

/** The full text of docs/configuration.md. */
export function renderConfigDoc(): string {
  const schema = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const docs = sectionDocs();
  const envByPath = new Map(ENV_OVERRIDES.map((o) => [o.path, o.env]));
  const lines: string[] = [
    '# Configuration reference',
    '',
    '<!-- Generated by `npm run docs:config` (scripts/gen-config-docs.ts) from the zod schema in src/config/. Do not edit: CI regenerates it and fails on a difference. -->',
    '',
    'ragwatch reads one YAML file (`-c FILE` or `RAGWATCH_CONFIG=FILE`; without it, every default below applies),',
    'then the environment overrides, then validates everything with zod. A bad value stops ragwatch with a message',
    'naming the key; unknown keys are rejected. `config/ragwatch.yaml` is a commented file with every default, and',
    '`config/examples/` has complete examples (all-in-one, Kafka collector + scorer, OpenAI, vLLM/Ollama, strict PII).',
    '',
    '## Environment overrides',
    '',
    'They win over the file. Secrets (API key, bearer token, SASL password, HMAC key) should come from here, never from the file.',
    '',
    '| variable | config key |',
    '|---|---|',
    '| `RAGWATCH_CONFIG` | path of the YAML file |',
    ...ENV_OVERRIDES.map((o) => `| \`${o.env}\` | \`${o.path}\`${o.kind === 'list' ? ' (comma-separated)' : ''} |`),
    '',
  ];
  for (const [section, sectionSchema] of Object.entries(schema.properties ?? {})) {
    lines.push(`## \`${section}\``, '');
    const about = sectionSchema.description ?? docs.get(section);
    if (about) lines.push(about, '');
    lines.push('| key | type | default | description |', '|---|---|---|---|');
    const rows: Row[] = [];
    leaves(sectionSchema, section, rows);
    for (const { key, schema: s } of rows) {
      if (key === section) {
        // A section that is a list itself (`evaluators`): its row is the section's description above.
        lines.push(`| \`[]\` | ${cell(typeOf(s))} | ${defaultOf(s)} | Each item, with the keys below. |`);
        continue;
      }
      const generic = key.replace(/\[\]/g, '.[]');
      // An evaluator's `alerts` is alerts.metrics.<metric>'s schema extended (its JSDoc lives there).
      const description = s.description ?? docs.get(generic) ?? docs.get(generic.replace(/^evaluators\.\[\]\.alerts\./, 'alerts.metrics.<name>.')) ?? '';
      const env = envByPath.get(key);
      const text = `${description}${env ? ` (env \`${env}\`)` : ''}`;
      lines.push(`| \`${key.startsWith(`${section}[]`) ? key.slice(section.length) : key.slice(section.length + 1)}\` | ${cell(typeOf(s))} | ${defaultOf(s)} | ${cell(text)} |`);
    }
    const objectDefaults = rows.filter((r) => typeof r.schema.default === 'object' && r.schema.default !== null && !Array.isArray(r.schema.default) && Object.keys(r.schema.default).length > 0);
    for (const r of objectDefaults) lines.push('', `Default of \`${r.key}\`:`, '', '```json', JSON.stringify(r.schema.default, null, 2), '```');
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const path = join(ROOT, CONFIG_DOC);
  const text = renderConfigDoc();
  const current = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  if (process.argv.includes('--check')) {
    if (current !== text) {
      process.stderr.write(`${CONFIG_DOC} is out of date: run npm run docs:config\n`);
      process.exitCode = 1;
    }
  } else if (current !== text) {
    writeFileSync(path, text);
    process.stdout.write(`wrote ${CONFIG_DOC}\n`);
  }
}
