/**
 * `npm run demo`: sends realistic OTLP/JSON RAG traffic (HaluEval QA, see scripts/data/README.md) to
 * a running `ragwatch start`, so the counters and scores on /metrics move — and starts the demo RAG
 * service over the example probe suite's company (scripts/demo-rag/service.ts) on --rag-port,
 * traced with the real OTel SDK to the same ragwatch, for `npm start -- -c config/demo.yaml` to probe.
 *
 *   npm run demo -- [--url http://127.0.0.1:4318] [--rate 5] [--count 0] [--mode mixed|grounded|ungrounded] [--rag-port 8080|off]
 *
 * grounded: the right answer in a sentence plus a supporting sentence from the source.
 * ungrounded: the hallucinated answer, padded with a restatement (repetitive and unsupported).
 * mixed (default): 80% grounded, 20% ungrounded. --count 0 runs until Ctrl-C.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startDemoRag } from './demo-rag/service.ts';
import { openInferenceTrace } from './lib/otlp-trace.ts';

interface Row {
  knowledge: string;
  question: string;
  right_answer: string;
  hallucinated_answer: string;
}

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: process.env.RAGWATCH_DEMO_URL ?? 'http://127.0.0.1:4318' },
    rate: { type: 'string', default: '5' },
    count: { type: 'string', default: '0' },
    mode: { type: 'string', default: 'mixed' },
    'rag-port': { type: 'string', default: '8080' },
  },
});
const mode = values.mode;
if (mode !== 'mixed' && mode !== 'grounded' && mode !== 'ungrounded') {
  console.error(`--mode must be mixed, grounded or ungrounded (got ${mode})`);
  process.exit(2);
}
const rate = Number(values.rate);
const count = Number(values.count);
if (!(rate > 0) || !Number.isInteger(count) || count < 0) {
  console.error('--rate must be > 0 and --count a whole number (0 = until Ctrl-C)');
  process.exit(2);
}

const ragPort = values['rag-port'];
if (ragPort !== 'off' && !/^\d+$/.test(ragPort)) {
  console.error(`--rag-port must be a port number or "off" (got ${ragPort})`);
  process.exit(2);
}
let closeRag: (() => Promise<void>) | undefined;
if (ragPort !== 'off') {
  try {
    const rag = await startDemoRag({ port: Number(ragPort), otlpUrl: values.url });
    closeRag = rag.close;
    console.log(`demo RAG service on ${rag.url} (traced to ${values.url}); probe it with "npm start -- -c config/demo.yaml"`);
  } catch (err) {
    console.error(`demo RAG service not started on port ${ragPort} (${(err as Error).message}); sending traffic only`);
  }
}

const rows = readFileSync(new URL('./data/halueval-qa-sample.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Row);

const sentencesOf = (text: string) => text.split(/(?<=[.!?])\s*(?=[A-Z])/).map((s) => s.trim()).filter(Boolean);
const asSentence = (s: string) => (/[.!?]$/.test(s.trim()) ? s.trim() : `${s.trim()}.`);

// Fictitious contact details (reserved example domain, Ofcom drama number range) some ungrounded answers
// leak, so pii_free and the "Personal data disclosed" panel have something to show.
const LEAK = 'For more, call our agent on +44 20 7946 0958 or write to jane.doe@example.com.';

function request(row: Row, grounded: boolean, i: number) {
  const facts = sentencesOf(row.knowledge);
  const response = grounded
    ? `${asSentence(`The answer is ${row.right_answer}`)} ${facts[facts.length - 1] ?? ''}`.trim()
    : `${asSentence(row.hallucinated_answer)} ${asSentence(`To repeat, ${row.hallucinated_answer.replace(/\.$/, '')}`)}${i % 10 === 0 ? ` ${LEAK}` : ''}`;
  return openInferenceTrace({
    query: row.question,
    documents: facts.map((content, i) => ({ id: `hotpot-${i}`, content, score: Number((0.9 - i * 0.1).toFixed(2)) })),
    response,
    service: 'rag-demo',
    model: 'demo-llm',
    ttftMs: 150 + Math.round(Math.random() * 350),
    durationMs: 600 + Math.round(Math.random() * 1400),
    outputTokens: Math.max(2, Math.round(response.length / 4)),
  });
}

let sent = 0;
let failed = 0;
const started = Date.now();
const stop = () => {
  console.log(JSON.stringify({ sent, failed, seconds: Math.round((Date.now() - started) / 1000) }));
  const code = failed > 0 && sent === 0 ? 1 : 0;
  void (closeRag?.() ?? Promise.resolve()).finally(() => process.exit(code));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

console.log(`sending ${mode} RAG traffic to ${values.url}/v1/traces at ${rate}/s${count ? ` (${count} requests)` : ' (Ctrl-C to stop)'}`);
for (let i = 0; count === 0 || i < count; i++) {
  const row = rows[i % rows.length]!;
  const grounded = mode === 'grounded' || (mode === 'mixed' && Math.random() < 0.8);
  const { body } = request(row, grounded, i);
  try {
    const res = await fetch(`${values.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.ok) sent++;
    else {
      failed++;
      console.error(`HTTP ${res.status}: ${await res.text()}`);
    }
  } catch (err) {
    failed++;
    if (failed === 1 || failed % 20 === 0) console.error(`cannot reach ${values.url} (${(err as Error).message}); is "npm start" running?`);
  }
  if (sent > 0 && sent % 50 === 0) console.log(`${sent} traces sent`);
  await new Promise((r) => setTimeout(r, 1000 / rate));
}
stop();
