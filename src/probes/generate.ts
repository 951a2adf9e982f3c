/**
 * Probe generation (GRAMMAR): every template's `[table.column]` placeholders are filled from
 * `SELECT DISTINCT column FROM table`, the Cartesian product deterministically subsampled to
 * `limits.maxQueriesPerTemplate`; the ground truth is the template's SELECT run with the fill-in
 * bound as parameters (never spliced into SQL text) on facts opened read-only. One group per fill-in:
 * every wording plus the configured perturbations.
 * @module
 */
import { hash } from 'node:crypto';
import { loadSqlite } from '../store/sqlite.ts';
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import { SuiteError } from '../errors.ts';
import type { ProbeSuite, ProbeTemplate } from './suite.ts';
import type { FactSource, ProbeQuery } from './types.ts';

/** `[table.column]` in a text. */
const PLACEHOLDER = /\[([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)\]/g;
/** The same in SQL, with the quotes a user writes around a string value (`'[employees.name]'`): all becomes one `?`. */
const SQL_PLACEHOLDER = /'?\[([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)\]'?/g;
/** Fill-in values read per placeholder at most (a huge column is sampled deterministically below this). */
const MAX_DISTINCT = 10_000;

/**
 * Opens the facts: the SQLite file read-only, or the CSV tables in an in-memory database.
 * `node:sqlite` is loaded on first use (src/store/sqlite.ts).
 */
export async function openFacts(facts: FactSource): Promise<DatabaseSync> {
  const { DatabaseSync } = await loadSqlite();
  if (facts.kind === 'sqlite') {
    try {
      return new DatabaseSync(facts.path, { readOnly: true });
    } catch (err) {
      throw new SuiteError(`key "database": cannot open ${facts.path} read-only: ${(err as Error).message}`, ['database']);
    }
  }
  const db = new DatabaseSync(':memory:');
  for (const [table, rows] of Object.entries(facts.tables)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new SuiteError(`key "csv": table name "${table}" (from its file name) must be letters, digits and _`, ['csv']);
    const columns = Object.keys(rows[0] ?? {});
    if (columns.length === 0) throw new SuiteError(`key "csv": ${table}.csv has no header or no row`, ['csv']);
    const bad = columns.find((c) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(c));
    if (bad !== undefined) throw new SuiteError(`key "csv": ${table}.csv column "${bad}" must be letters, digits and _`, ['csv']);
    db.exec(`CREATE TABLE "${table}" (${columns.map((c) => `"${c}"`).join(', ')})`);
    const insert = db.prepare(`INSERT INTO "${table}" VALUES (${columns.map(() => '?').join(', ')})`);
    for (const row of rows) insert.run(...columns.map((c) => row[c] ?? null));
  }
  return db;
}

/** Placeholders of a text, in order of first appearance (`employees.name`). */
function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => `${m[1]}.${m[2]}`))];
}

function columnsOf(db: DatabaseSync, table: string): string[] | undefined {
  const rows = db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as Array<{ name: string }>;
  return rows.length === 0 ? undefined : rows.map((r) => r.name);
}

/** Deterministic order of fill-ins: by a hash of the template and the values (stable subsample across runs). */
const rank = (template: string, values: readonly unknown[]) => hash('sha256', `${template}\u0000${JSON.stringify(values)}`, 'hex');

/** Whether a position of `query` falls inside any occurrence of the `protect` values (the fill-ins). */
function insideAny(query: string, protect: readonly string[]): (at: number) => boolean {
  return (at) =>
    protect.some((v) => {
      for (let i = query.indexOf(v); v !== '' && i >= 0; i = query.indexOf(v, i + 1)) if (at >= i && at < i + v.length) return true;
      return false;
    });
}

/**
 * Deterministic input variations of a query (HCAT robustness). `typo` swaps two inner letters of the
 * longest word outside the fill-in values (the entity asked about stays intact).
 */
export function perturb(query: string, kind: 'typo' | 'lowercase', protect: readonly string[] = []): string {
  if (kind === 'lowercase') return query.toLowerCase();
  const inValue = insideAny(query, protect);
  const words = [...query.matchAll(/\p{L}{4,}/gu)].filter((w) => !inValue(w.index));
  if (words.length === 0) return query;
  const longest = words.reduce((a, b) => (b[0].length > a[0].length ? b : a));
  const i = longest.index + Math.floor(longest[0].length / 2) - 1;
  return query.slice(0, i) + query[i + 1] + query[i] + query.slice(i + 2);
}

/**
 * Swaps whole words of `query` by `swaps` (case-insensitive, both directions in one pass so he ↔ she do
 * not chain, the first letter's case kept), never inside a fill-in value (the entity asked about).
 */
export function swapTerms(query: string, swaps: Readonly<Record<string, string>>, protect: readonly string[] = []): string {
  const table = new Map(Object.entries(swaps).map(([k, v]) => [k.toLowerCase(), v]));
  if (table.size === 0) return query;
  const words = [...table.keys()].sort((a, b) => b.length - a.length).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const inValue = insideAny(query, protect);
  return query.replace(new RegExp(`(?<![\\p{L}\\p{N}])(${words.join('|')})(?![\\p{L}\\p{N}])`, 'giu'), (m: string, _w: string, at: number) => {
    if (inValue(at)) return m;
    const to = table.get(m.toLowerCase())!;
    return m[0] === m[0]!.toUpperCase() && m[0] !== m[0]!.toLowerCase() ? to[0]!.toUpperCase() + to.slice(1) : to;
  });
}

function checkSql(t: ProbeTemplate): void {
  const sql = t.sql.trim().replace(/;\s*$/, '');
  if (!/^select\b/i.test(sql) || sql.includes(';')) throw new SuiteError(`template "${t.name}": key "sql" must be one SELECT statement`, [`templates.${t.name}.sql`]);
}

/** Every probe query of a suite, with ground truth. Throws {@link SuiteError} naming the template and key. */
export function generateProbes(suite: ProbeSuite, db: DatabaseSync): ProbeQuery[] {
  const out: ProbeQuery[] = [];
  for (const t of suite.templates) {
    checkSql(t);
    const keys = placeholders(t.sql);
    for (const [i, text] of t.texts.entries()) {
      const inText = placeholders(text);
      const missing = keys.find((k) => !inText.includes(k));
      if (missing) throw new SuiteError(`template "${t.name}": key "texts.${i}" lacks placeholder [${missing}] of its sql`, [`templates.${t.name}.texts.${i}`]);
      const extra = inText.find((k) => !keys.includes(k));
      if (extra) throw new SuiteError(`template "${t.name}": key "texts.${i}" has placeholder [${extra}] that its sql does not use`, [`templates.${t.name}.texts.${i}`]);
    }
    // Fill-in values per placeholder, from the facts.
    const domains: Array<Array<SQLInputValue>> = keys.map((key) => {
      const [table, column] = key.split('.') as [string, string];
      const columns = columnsOf(db, table);
      if (!columns) throw new SuiteError(`template "${t.name}": key "sql": unknown table "${table}" in [${key}]`, [`templates.${t.name}.sql`]);
      if (!columns.includes(column)) throw new SuiteError(`template "${t.name}": key "sql": unknown column "${column}" of table "${table}" in [${key}] (columns: ${columns.join(', ')})`, [`templates.${t.name}.sql`]);
      const rows = db.prepare(`SELECT DISTINCT "${column}" AS v FROM "${table}" WHERE "${column}" IS NOT NULL LIMIT ${MAX_DISTINCT}`).all() as Array<{ v: SQLInputValue }>;
      return rows.map((r) => r.v);
    });
    let combos: SQLInputValue[][] = [[]];
    for (const d of domains) combos = combos.flatMap((c) => d.map((v) => [...c, v])).slice(0, 1_000_000);
    combos = combos
      .map((c) => ({ c, r: rank(t.name, c) }))
      .sort((a, b) => (a.r < b.r ? -1 : a.r > b.r ? 1 : 0))
      .slice(0, suite.limits.maxQueriesPerTemplate)
      .map((x) => x.c);
    // Placeholders become bound parameters in order of appearance (quotes around them included).
    const order: string[] = [];
    const sql = t.sql.replace(SQL_PLACEHOLDER, (_m, table: string, column: string) => (order.push(`${table}.${column}`), '?'));
    let statement;
    try {
      statement = db.prepare(sql);
    } catch (err) {
      throw new SuiteError(`template "${t.name}": key "sql" fails: ${(err as Error).message}`, [`templates.${t.name}.sql`]);
    }
    for (const combo of combos) {
      const fill = Object.fromEntries(keys.map((k, i) => [k, String(combo[i])]));
      const params = order.map((k) => combo[keys.indexOf(k)]!);
      let rows: Array<Record<string, SQLInputValue>>;
      try {
        rows = statement.all(...params) as Array<Record<string, SQLInputValue>>;
      } catch (err) {
        throw new SuiteError(`template "${t.name}": key "sql" fails for ${JSON.stringify(fill)}: ${(err as Error).message}`, [`templates.${t.name}.sql`]);
      }
      if (rows.length === 0) throw new SuiteError(`template "${t.name}": key "sql" returned no row for ${JSON.stringify(fill)}: a probe needs a known answer`, [`templates.${t.name}.sql`]);
      const truth = rows.map((r) => Object.values(r)[0]).map((v) => (typeof v === 'number' ? v : String(v)));
      const group = rank(t.name, combo).slice(0, 16);
      const fillText = (text: string) => text.replace(PLACEHOLDER, (_m, table: string, column: string) => fill[`${table}.${column}`]!);
      const base = { suite: suite.suite, template: t.name, group, fill, truth, match: t.match, tolerance: t.tolerance };
      t.texts.forEach((text, i) => out.push({ ...base, variant: `text:${i}`, query: fillText(text) }));
      for (const p of suite.perturbations) {
        if (p !== 'demographic') {
          out.push({ ...base, variant: p, query: perturb(fillText(t.texts[0]!), p, Object.values(fill)) });
          continue;
        }
        const first = fillText(t.texts[0]!);
        for (const [name, swaps] of Object.entries(suite.demographics)) {
          const swapped = swapTerms(first, swaps, Object.values(fill));
          // A wording with none of the variant's terms gives no variant (it would only repeat text:0).
          if (swapped !== first) out.push({ ...base, variant: `demographic:${name}`, query: swapped });
        }
      }
    }
  }
  return out;
}
