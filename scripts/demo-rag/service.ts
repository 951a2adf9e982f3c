/**
 * A small RAG service over the example probe suite's company (config/probes/example/facts), for the
 * probes demo and tests: documents rendered from the same facts, a keyword retriever (top 2 by word
 * overlap) and an extractive answerer. Its weaknesses are real and explainable:
 * - facts missing from the documents (Hana Sato's title, Contractly's launch year, the Support
 *   floor) → gap groups: no wording can be answered;
 * - a wording whose words match the wrong documents ("Which Acme employee manages the … account?"
 *   pulls employee pages) → non-robust groups attributed to retrieval;
 * - a wording the answerer mishandles with the right passage retrieved ("In which year did … come
 *   out?" is not read as a launch question) → failures attributed to the generator.
 *
 * Multiple-choice questions (exams) are answered with the letter of the option the retrieved pages
 * state; `--index stale` starts a weaker release whose index lost every other page.
 *
 * `--release R` sets `service.version` on its traces; `--hallucinate` starts a broken release that answers
 * with facts no source states (for the slice alerts and the release gate).
 *
 *   node scripts/demo-rag/service.ts [--port 8080] [--otlp http://127.0.0.1:4318] [--index full|stale] [--release R] [--hallucinate]   POST /ask {"question": "..."} → {answer, sources}
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse } from 'csv-parse/sync';
import { demoTracing } from './tracing.ts';

const FACTS = fileURLToPath(new URL('../../config/probes/example/facts/', import.meta.url));
const table = (name: string) => parse(readFileSync(`${FACTS}${name}.csv`), { columns: true, trim: true }) as Array<Record<string, string>>;

/** Facts deliberately left out of the documents (the gap groups). */
const MISSING = { title: new Set(['Hana Sato']), launched: new Set(['Contractly']), floor: new Set(['Support']) };

/** The corpus: one page per entity, rendered from the facts. */
export function documents(): Array<{ id: string; content: string }> {
  const docs: Array<{ id: string; content: string }> = [];
  for (const e of table('employees')) {
    const title = MISSING.title.has(e.name!) ? '' : ` ${e.name} is the ${e.title} of the team.`;
    docs.push({ id: `employee-${e.name}`, content: `${e.name} is an Acme employee. ${e.name} works in the ${e.department} department and is based in the ${e.office} office.${title} Joined Acme in ${e.hired}.` });
  }
  for (const d of table('departments')) {
    const floor = MISSING.floor.has(d.name!) ? '' : ` The ${d.name} department sits on floor ${d.floor}.`;
    docs.push({ id: `department-${d.name}`, content: `The ${d.name} department is headed by ${d.head}.${floor}` });
  }
  for (const p of table('products')) {
    const launched = MISSING.launched.has(p.name!) ? '' : ` ${p.name} was launched in ${p.launched}.`;
    docs.push({ id: `product-${p.name}`, content: `${p.name} is an Acme ${p.category} product. ${p.name} costs ${p.price_eur} euros per month.${launched}` });
  }
  for (const c of table('clients')) docs.push({ id: `client-${c.name}`, content: `${c.name} is a client in ${c.country}. The ${c.name} account is managed by ${c.account_manager}. ${c.name} uses ${c.product}.` });
  return docs;
}

const STOP = new Set('the a an of in on at to is are was does do did which what who whom where when how much many for by and or with that this it its be as from per'.split(' '));
const words = (s: string) => new Set((s.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []).filter((w) => !STOP.has(w)));

/** Top `k` documents by shared words with the question (ties: corpus order). */
export function retrieve(question: string, docs: ReadonlyArray<{ id: string; content: string }>, k = 2): Array<{ id: string; content: string }> {
  const q = words(question);
  return docs
    .map((d, i) => ({ d, i, score: [...words(d.content)].filter((w) => q.has(w)).length }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, k)
    .map((x) => x.d);
}

/** Extraction rules: which question words ask for what, and where the answer stands in a page. */
const RULES: Array<{ asks: RegExp; finds: RegExp }> = [
  { asks: /\b(department|team)\b/i, finds: /works in the ([\w ]+?) department/ },
  { asks: /\b(title|do at)\b/i, finds: /is the ([\w ]+?) of the team/ },
  { asks: /\b(office|based)\b/i, finds: /based in the (\w+) office/ },
  { asks: /\b(heads|charge)\b/i, finds: /headed by ([\w' ]+?)\./ },
  { asks: /\bfloor\b/i, finds: /sits on floor (\d+)/ },
  { asks: /\b(cost|price)\b/i, finds: /costs (\d+) euros/ },
  // "come out" is not read as a launch question: the generator's weakness.
  { asks: /\blaunch/i, finds: /launched in (\d{4})/ },
  { asks: /\b(account manager|manages)\b/i, finds: /managed by ([\w' ]+?)\./ },
];

/** A multiple-choice question (exams, docs/exams.md): the stem and its "A) …" options. */
function multipleChoice(question: string): { stem: string; options: string[] } | undefined {
  const options = [...question.matchAll(/^([A-D])\) (.+)$/gm)].map((m) => m[2]!.trim());
  return options.length === 4 ? { stem: question.slice(0, question.search(/^A\) /m)).trim(), options } : undefined;
}

/** The letter of the option the retrieved pages state (the longest one found in them), or "I don't know". */
function choose(options: readonly string[], sources: ReadonlyArray<{ content: string }>): string {
  const text = sources.map((s) => s.content).join(' ');
  const found = options.map((o, i) => ({ o, i })).filter((x) => new RegExp(`\\b${x.o.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(text)).sort((a, b) => b.o.length - a.o.length);
  return found.length > 0 ? `${'ABCD'[found[0]!.i]}` : "I don't know.";
}

/** An extractive answer from the retrieved pages, or "I don't know". */
export function answer(question: string, sources: ReadonlyArray<{ content: string }>): string {
  const mc = multipleChoice(question);
  if (mc) return choose(mc.options, sources);
  const rule = RULES.find((r) => r.asks.test(question));
  if (rule) {
    for (const s of sources) {
      const m = rule.finds.exec(s.content);
      if (m) return `${m[1]}.`;
    }
    return "I don't know.";
  }
  // No rule matched: answer with the first number or the first sentence of the top page.
  const top = sources[0]?.content;
  if (!top) return "I don't know.";
  return `${/\b\d+\b/.exec(top)?.[0] ?? top.split('. ')[0]}.`;
}

/** Options of {@link startDemoRag}. */
export interface DemoRagOptions {
  port?: number;
  host?: string;
  /** ragwatch's OTLP/HTTP base URL: when set, every request is traced with the real OTel SDK and exported there. */
  otlpUrl?: string;
  /** Leave `sources` out of the JSON reply (ragwatch then finds them only in the trace). */
  hideSources?: boolean;
  /** `stale`: a release whose index lost every other page (a weaker retriever, for the exams demo). Default `full`. */
  index?: 'full' | 'stale';
  /** The release: `service.version` on the traces' resource (slice alerts and release gates). */
  release?: string;
  /** A broken release: answers with facts the sources do not state (a year, a name, a city). Default false. */
  hallucinate?: boolean;
}

/** A broken release's answer: confident, fluent, and unsupported by any source. */
export function hallucinated(question: string): string {
  const n = [...question].reduce((a, c) => (a * 31 + c.charCodeAt(0)) >>> 0, 7);
  const names = ['Gustav Lindqvist', 'Marta Okafor', 'Rhys Penhaligon', 'Ines Carvalho'];
  const cities = ['Tromsø', 'Valparaíso', 'Ljubljana', 'Winnipeg'];
  return `${names[n % 4]} confirmed it in ${1900 + (n % 90)} at the ${cities[(n >> 3) % 4]} office.`;
}

/** Starts the service; resolves once it listens. `close` stops it and flushes its traces. */
export async function startDemoRag(options: DemoRagOptions = {}): Promise<{ server: Server; url: string; close: () => Promise<void> }> {
  const { port = 0, host = '127.0.0.1' } = options;
  const tracing = options.otlpUrl ? demoTracing(options.otlpUrl, undefined, options.release) : undefined;
  const respond = (question: string, sources: ReadonlyArray<{ content: string }>) => (options.hallucinate && !multipleChoice(question) ? hallucinated(question) : answer(question, sources));
  const docs = options.index === 'stale' ? documents().filter((_, i) => i % 2 === 0) : documents();
  // An exam question is retrieved on its stem: the options' words would pull in other pages.
  const retrieveFor = (question: string) => retrieve(multipleChoice(question)?.stem ?? question, docs);
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/ask') return void res.writeHead(404).end();
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
      if (body.length > 64 * 1024) req.destroy();
    });
    req.on('end', () => {
      let question: string;
      try {
        question = String((JSON.parse(body) as { question?: unknown }).question ?? '');
      } catch {
        return void res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"body must be JSON {\\"question\\": \\"...\\"}"}');
      }
      const reply = (sources: Array<{ id: string; content: string }>, text: string) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(options.hideSources ? { answer: text } : { answer: text, sources }));
      if (!tracing) {
        const sources = retrieveFor(question);
        reply(sources, respond(question, sources));
        return;
      }
      tracing.traced(req.headers, question, (spans) => {
        const sources = retrieveFor(question);
        spans.retrieved(sources);
        const text = respond(question, sources);
        spans.answered(text, `Context:\n${sources.map((s) => s.content).join('\n')}\n\nQuestion: ${question}`);
        reply(sources, text);
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const close = async () => {
    await new Promise((resolve) => server.close(resolve));
    await tracing?.shutdown();
  };
  return { server, url: `http://${host}:${(server.address() as { port: number }).port}/ask`, close };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '8080' }, otlp: { type: 'string' }, index: { type: 'string', default: 'full' }, release: { type: 'string' }, hallucinate: { type: 'boolean', default: false } } });
  const { url } = await startDemoRag({ port: Number(values.port), index: values.index === 'stale' ? 'stale' : 'full', hallucinate: values.hallucinate, ...(values.release ? { release: values.release } : {}), ...(values.otlp ? { otlpUrl: values.otlp } : {}) });
  console.log(`demo RAG service on ${url} (POST {"question": "..."})${values.otlp ? `, traces to ${values.otlp}` : ''}`);
}
