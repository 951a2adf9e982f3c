/**
 * Builds the example exam of the demo company (config/exams/example/exam.yaml) from its facts, as a
 * stand-in for `ragwatch exam generate` (no model runs here): one question per fact the documents
 * hold, the three distractors drawn from other values of the same column, options shuffled and every
 * question classified exactly as generated exams are.
 *
 *   node scripts/build-demo-exam.ts   (rewrites config/exams/example/exam.yaml)
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { saveExam } from '../src/exams/load-exam.ts';
import { bloomCategories, questionWord } from '../src/exams/classify.ts';
import { itemId, shuffleOptions } from '../src/exams/generate.ts';
import type { Exam, ExamItem } from '../src/exams/types.ts';

const FACTS = fileURLToPath(new URL('../config/probes/example/facts/', import.meta.url));
const table = (name: string) => parse(readFileSync(`${FACTS}${name}.csv`), { columns: true, trim: true }) as Array<Record<string, string>>;

function item(question: string, correct: string, pool: readonly string[], source: string): ExamItem | undefined {
  const others = [...new Set(pool.filter((v) => v !== correct))].sort();
  if (others.length < 3) return undefined;
  // Three distractors picked by the question's position in a stable order (deterministic, varied).
  const start = [...question].reduce((s, ch) => (s * 31 + ch.charCodeAt(0)) >>> 0, 7) % others.length;
  const distractors = [0, 1, 2].map((k) => others[(start + k) % others.length]!);
  const { options, answer } = shuffleOptions({ question, options: [correct, ...distractors] as [string, string, string, string], correct: 'A' });
  return { id: itemId(question), question, options, answer, source, bloom: bloomCategories(question), questionWord: questionWord(question) };
}

const employees = table('employees');
const departments = table('departments');
const products = table('products');
const clients = table('clients');
const items = [
  ...employees.map((e) => item(`Which department does ${e.name} work in?`, e.department!, employees.map((x) => x.department!), `employee-${e.name}`)),
  ...employees.map((e) => item(`In which office is ${e.name} based?`, e.office!, employees.map((x) => x.office!), `employee-${e.name}`)),
  ...departments.map((d) => item(`Who heads the ${d.name} department?`, d.head!, departments.map((x) => x.head!), `department-${d.name}`)),
  ...products.map((p) => item(`How much does ${p.name} cost per month, in euros?`, p.price_eur!, products.map((x) => x.price_eur!), `product-${p.name}`)),
  ...clients.map((c) => item(`Who is the account manager of ${c.name}?`, c.account_manager!, clients.map((x) => x.account_manager!), `client-${c.name}`)),
  ...employees.map((e) => item(`What is the job title of ${e.name}?`, e.title!, employees.map((x) => x.title!), `employee-${e.name}`)),
  ...employees.map((e) => item(`In which year did ${e.name} join Acme?`, e.hired!, employees.map((x) => x.hired!), `employee-${e.name}`)),
  ...departments.map((d) => item(`On which floor does the ${d.name} department sit?`, d.floor!, ['1', '2', '3', '4', '5', '6'], `department-${d.name}`)),
  ...products.map((p) => item(`In which year was ${p.name} launched?`, p.launched!, products.map((x) => x.launched!), `product-${p.name}`)),
  ...products.map((p) => item(`What kind of product is ${p.name}?`, p.category!, [...products.map((x) => x.category!), 'security', 'analytics'], `product-${p.name}`)),
  ...clients.map((c) => item(`In which country is ${c.name} based?`, c.country!, clients.map((x) => x.country!), `client-${c.name}`)),
  ...clients.map((c) => item(`Which Acme product does ${c.name} use?`, c.product!, products.map((x) => x.name!), `client-${c.name}`)),
].filter((i): i is ExamItem => i !== undefined);

const exam: Exam = { exam: 'acme_example', version: 1, generated: { at: '2026-11-25T00:00:00.000Z', model: 'facts (scripts/build-demo-exam.ts)', documents: employees.length + departments.length + products.length + clients.length }, items };
saveExam(fileURLToPath(new URL('../config/exams/example/exam.yaml', import.meta.url)), exam);
console.log(`${items.length} questions → config/exams/example/exam.yaml`);
