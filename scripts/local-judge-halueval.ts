/**
 * Runs the local judge's model on HaluEval QA and writes one JSON line per answer with everything the
 * choices of the local judge need (whole-answer verdict, per-sentence verdicts, the lexical check,
 * lengths, tokens, time), so prompt, aggregation, combination and thresholds are chosen from one run:
 * `node scripts/local-judge-report.ts OUT.jsonl` computes the figures.
 *
 *   node scripts/local-judge-halueval.ts --model FILE.gguf [--file qa_one_turn.jsonl] [--limit N] [--out F] [--asks supported,correct]
 *
 * Besides each answer as HaluEval gives it (one sentence, nearly always), it judges a two-sentence
 * composite: the answer followed by the source's last sentence (as `npm run demo` builds grounded
 * answers), so one hallucinated sentence sits beside a supported one — what per-sentence judging is
 * for. Each sentence is asked about in the wordings of SENTENCE_ASKS given by --asks (default supported).
 *
 * Tune on qa_one_turn.jsonl (the development file) only; qa_multi_turn.jsonl is held out (DESIGN §24).
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { groundingLexical } from '../src/judges/embedded/lexical.ts';
import { SENTENCE_ASKS, buildPrompt, type SentenceAsk } from '../src/judges/local/prompt.ts';
import { loadLocalRuntime } from '../src/judges/local/runtime.ts';
import { splitSentences } from '../src/judges/sentences.ts';

const { values } = parseArgs({
  options: {
    model: { type: 'string' },
    file: { type: 'string', default: new URL('../../shared/data/halueval/qa_one_turn.jsonl', import.meta.url).pathname },
    limit: { type: 'string' },
    out: { type: 'string', default: 'local-judge-halueval.jsonl' },
    threads: { type: 'string', default: '2' },
    asks: { type: 'string', default: 'supported' },
  },
});
if (!values.model) throw new Error('--model FILE.gguf is required (bash scripts/models/fetch-test-model.sh prints one)');
if (values.file.includes('multi_turn')) process.stderr.write('warning: qa_multi_turn is the held-out set; never tune on it\n');

interface Row { knowledge: string; question: string; right_answer: string; hallucinated_answer: string }
const rows = readFileSync(values.file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row).slice(0, values.limit ? Number(values.limit) : undefined);
const done = new Set(existsSync(values.out) ? readFileSync(values.out, 'utf8').trim().split('\n').filter(Boolean).map((l) => { const o = JSON.parse(l) as { row: number; label: number }; return `${o.row}:${o.label}`; }) : []);

const asks = values.asks.split(',') as SentenceAsk[];
for (const a of asks) if (!(a in SENTENCE_ASKS)) throw new Error(`--asks: ${a} is not one of ${Object.keys(SENTENCE_ASKS).join(', ')}`);
const memo = new Map<string, number>();
const loadStarted = performance.now();
const runtime = await loadLocalRuntime({ modelPath: values.model, threads: Number(values.threads) });
process.stderr.write(`model loaded in ${Math.round(performance.now() - loadStarted)} ms\n`);
for (const [row, r] of rows.entries()) {
  for (const [label, answer] of [[1, r.right_answer], [0, r.hallucinated_answer]] as const) {
    if (done.has(`${row}:${label}`)) continue;
    const started = performance.now();
    const cpu0 = process.cpuUsage();
    const whole = buildPrompt({ document: r.knowledge, question: r.question, answer });
    const w = await runtime.verdict(whole.prefix, whole.suffix);
    const facts = splitSentences(r.knowledge);
    const composite = `${/[.!?]$/.test(answer.trim()) ? answer.trim() : `${answer.trim()}.`} ${facts[facts.length - 1] ?? ''}`.trim();
    const sentences = splitSentences(composite);
    const perSentence: Record<string, number[]> = {};
    for (const ask of asks) {
      perSentence[ask] = [];
      for (const sentence of sentences) {
        const p = buildPrompt({ document: r.knowledge, question: r.question, answer: composite, sentence }, { ask });
        const key = p.prefix + p.suffix;
        // The source sentence is the same for both answers of a row: judged once.
        const v = memo.get(key) ?? (await runtime.verdict(p.prefix, p.suffix)).unsupported;
        memo.set(key, v);
        perSentence[ask].push(v);
      }
    }
    const lexical = groundingLexical(answer, [r.knowledge]);
    const compositeLexical = groundingLexical(composite, [r.knowledge]);
    const cpu = process.cpuUsage(cpu0);
    appendFileSync(values.out, JSON.stringify({
      row, label, chars: answer.length, whole: w.unsupported, mass: w.mass, compositeSentences: sentences.length, perSentence,
      lexical: lexical.ok ? lexical.score : null, compositeLexical: compositeLexical.ok ? compositeLexical.score : null,
      promptTokens: w.promptTokens, evaluatedTokens: w.evaluatedTokens, ms: Math.round(performance.now() - started), cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    }) + '\n');
  }
  if (row % 20 === 19) process.stderr.write(`${row + 1} rows\n`);
}
await runtime.dispose();
