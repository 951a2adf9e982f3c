/**
 * `ragwatch exam`: multiple-choice exams generated from the service's documents and scored with item
 * response theory per release (docs/exams.md).
 *   generate — draft questions from a folder of documents with the configured LLM, filter, write YAML
 *   take     — put an exam suite's questions to the service; answers stored per taker (release)
 *   fit      — the 3PL fit of any response file (lines {taker, question, correct})
 *   refine   — the paper's iterative refinement: drop the least discriminative questions, refit
 *   report   — θ ± se, accuracy by Bloom category and question word, per question a, b, c, regression
 * @module
 */
import { parseArgs } from 'node:util';
import { readJsonLines } from '../calibration/label-file.ts';
import { loadExam, loadExamSuite, saveExam } from '../exams/load-exam.ts';
import { loadConfig } from '../config/load.ts';
import { ConfigError } from '../errors.ts';
import { generateExam, readDocuments } from '../exams/generate.ts';
import { fitIrt, refineExam, type ExamResponse } from '../exams/irt.ts';
import { examReport, type ExamReport } from '../exams/report.ts';
import { takeExam } from '../exams/take.ts';
import { llmClientOf } from '../probes/judge-match.ts';
import { openExamStore } from '../exams/exam-store.ts';
import type { Command } from './types.ts';

const USAGE = `usage:
  ragwatch exam generate DOCS_DIR --name NAME --out EXAM.yaml [--domain TEXT] [-c FILE]
  ragwatch exam take SUITE.yaml [--taker NAME] [--json] [-c FILE]
  ragwatch exam fit RESPONSES.jsonl [--json]
  ragwatch exam refine (RESPONSES.jsonl | --exam EXAM.yaml) [--rounds 3] [--drop 0.1] [--out EXAM.yaml] [--json] [-c FILE]
  ragwatch exam report --exam EXAM.yaml [--json] [-c FILE]

generate asks the LLM of judge.baseUrl for one question per document chunk (.txt, .md), drops
unparseable, non-self-contained, degenerate and closed-book-answerable questions, and writes an exam a
person reviews. take puts every question to the suite's target (probe trace ids, origin=probe) and stores
the answers under the taker (the service's release) in store.dataDir. fit prints {takers: [{taker, theta,
se, accuracy}], questions: [{question, a, b, c}]} with --json. refine drops the least discriminative --drop
share per round and, with --out, writes the kept questions as the exam's next version.`;

const f2 = (v: number) => v.toFixed(2);

function printReport(r: ExamReport, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(r)}\n`);
    return;
  }
  const lines = [`exam ${r.exam} v${r.version}: ${r.questions} questions, ${r.takers.length} takers`];
  for (const t of r.takers) lines.push(`  ${t.taker}: θ ${f2(t.theta)} ± ${f2(t.se)}, accuracy ${f2(t.accuracy)} (${t.answered} graded, ${t.unparsed} unparsed, ${t.errors} errors); by Bloom ${Object.entries(t.byBloom).map(([k, v]) => `${k} ${f2(v.accuracy)}`).join(', ')}`);
  if (r.regression) lines.push(`${r.regression.regressed ? 'REGRESSION' : 'no regression'}: ${r.regression.taker} vs ${r.regression.previous} Δθ ${f2(-r.regression.drop)} (limit −${f2(r.regression.z * r.regression.combinedSe)} = ${r.regression.z} × combined se ${f2(r.regression.combinedSe)})`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

function responsesOf(file: string): ExamResponse[] {
  return readJsonLines(file, 'exam', 'RESPONSES').map(({ line, raw }) => {
    const r = raw as Partial<ExamResponse> | null;
    if (!r || typeof r.taker !== 'string' || typeof r.question !== 'string' || (r.correct !== 0 && r.correct !== 1 && (r.correct as unknown) !== true && (r.correct as unknown) !== false)) {
      throw new ConfigError(`${file}:${line}: expected {"taker": string, "question": string, "correct": 0|1}`, ['RESPONSES']);
    }
    return { taker: r.taker, question: r.question, correct: r.correct === 1 || (r.correct as unknown) === true ? 1 : 0 };
  });
}

export const examCommand: Command = {
  name: 'exam',
  summary: 'multiple-choice exams from your documents, scored with IRT per release (generate, take, fit, refine, report)',
  usage: USAGE,
  async run(argv) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { config: { type: 'string', short: 'c' }, json: { type: 'boolean', default: false }, name: { type: 'string' }, out: { type: 'string' }, domain: { type: 'string' }, taker: { type: 'string' }, exam: { type: 'string' }, rounds: { type: 'string', default: '3' }, drop: { type: 'string', default: '0.1' } },
    });
    const [sub, arg] = positionals;
    const config = () => loadConfig(values.config ? { file: values.config } : {});
    switch (sub) {
      case 'generate': {
        if (!arg || !values.name || !values.out) throw new ConfigError(`ragwatch exam generate: expected DOCS_DIR --name NAME --out EXAM.yaml\n${USAGE}`, ['DOCS_DIR']);
        const c = config();
        if (c.judge.baseUrl === undefined) throw new ConfigError('ragwatch exam generate: config key "judge.baseUrl" is not set (an OpenAI-compatible endpoint writes the questions)', ['judge.baseUrl']);
        const docs = readDocuments(arg);
        if (docs.length === 0) throw new ConfigError(`ragwatch exam generate: no .txt or .md document in ${arg}`, ['DOCS_DIR']);
        const { exam, report } = await generateExam(values.name, docs, { client: llmClientOf(c), domain: values.domain ?? values.name, model: c.judge.model });
        if (exam.items.length === 0) throw new ConfigError(`ragwatch exam generate: every draft was dropped: ${JSON.stringify(report.dropped)}`, ['DOCS_DIR']);
        saveExam(values.out, exam);
        process.stdout.write(`${values.json ? JSON.stringify(report) : `${report.kept} of ${report.drafted} drafted questions kept from ${report.documents} chunks → ${values.out}; dropped: ${Object.entries(report.dropped).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}`}\n`);
        return;
      }
      case 'take': {
        if (!arg) throw new ConfigError(`ragwatch exam take: expected SUITE.yaml\n${USAGE}`, ['SUITE']);
        const { suite, exam } = loadExamSuite(arg, undefined, values.taker);
        const taker = suite.taker;
        const taken = await takeExam(suite, exam);
        const store = await openExamStore(config());
        const now = Date.now();
        store.add(taken.map((t) => ({ exam: exam.exam, version: exam.version, taker, question: t.question, outcome: t.outcome, atMs: now })));
        const count = (o: string) => taken.filter((t) => t.outcome === o).length;
        const graded = count('correct') + count('wrong');
        const summary = { exam: exam.exam, version: exam.version, taker, questions: taken.length, correct: count('correct'), wrong: count('wrong'), unparsed: count('unparsed'), errors: count('error'), accuracy: graded === 0 ? null : count('correct') / graded };
        process.stdout.write(`${values.json ? JSON.stringify(summary) : `${taker} took ${exam.exam} v${exam.version}: ${summary.correct}/${graded} correct${summary.accuracy === null ? '' : ` (${f2(summary.accuracy)})`}, ${summary.unparsed} unparsed, ${summary.errors} errors`}\n`);
        return;
      }
      case 'fit': {
        if (!arg) throw new ConfigError(`ragwatch exam fit: expected RESPONSES.jsonl\n${USAGE}`, ['RESPONSES']);
        const fit = fitIrt(responsesOf(arg));
        const out = { takers: fit.takers.map(({ taker, theta, se, accuracy }) => ({ taker, theta, se, accuracy })), questions: fit.questions.map(({ question, a, b, c }) => ({ question, a, b, c })), converged: fit.converged };
        process.stdout.write(values.json ? `${JSON.stringify(out)}\n` : `${out.takers.map((t) => `${t.taker}: θ ${f2(t.theta)} ± ${f2(t.se)}, accuracy ${f2(t.accuracy)}`).join('\n')}\n${out.questions.length} questions: mean a ${f2(out.questions.reduce((s, q) => s + q.a, 0) / out.questions.length)}\n`);
        return;
      }
      case 'refine': {
        const rounds = Number(values.rounds);
        const drop = Number(values.drop);
        if (!Number.isInteger(rounds) || rounds < 1 || !(drop > 0 && drop < 1)) throw new ConfigError('ragwatch exam refine: --rounds must be a positive integer and --drop in (0, 1)', ['--rounds', '--drop']);
        const exam = values.exam ? loadExam(values.exam) : undefined;
        const store = exam ? await openExamStore(config()) : undefined;
        const responses = exam ? store!.answers(exam.exam, exam.version).filter((a) => a.outcome === 'correct' || a.outcome === 'wrong').map((a) => ({ taker: a.taker, question: a.question, correct: a.outcome === 'correct' ? (1 as const) : (0 as const) })) : arg ? responsesOf(arg) : [];
        if (responses.length === 0) throw new ConfigError(`ragwatch exam refine: no graded answers (give RESPONSES.jsonl, or --exam EXAM.yaml with answers in the store)\n${USAGE}`, ['RESPONSES']);
        const result = refineExam(responses, { rounds, dropShare: drop });
        if (values.out && exam) saveExam(values.out, { ...exam, version: exam.version + 1, items: exam.items.filter((i) => result.kept.includes(i.id)) });
        process.stdout.write(values.json ? `${JSON.stringify({ rounds: result.rounds, kept: result.kept })}\n` : `${result.rounds.map((r) => `round ${r.round}: ${r.questions} questions, mean a ${f2(r.meanDiscrimination)}, dropped ${r.dropped.length}`).join('\n')}\nkept ${result.kept.length}${values.out && exam ? ` → ${values.out} (v${exam.version + 1})` : ''}\n`);
        return;
      }
      case 'report': {
        if (!values.exam) throw new ConfigError(`ragwatch exam report: expected --exam EXAM.yaml\n${USAGE}`, ['--exam']);
        const exam = loadExam(values.exam);
        const store = await openExamStore(config());
        const report = examReport(exam, store.answers(exam.exam, exam.version), store.takers(exam.exam, exam.version), config().exams.regressionZ);
        if (!report) throw new ConfigError(`ragwatch exam report: no graded answer of ${exam.exam} v${exam.version} in the store yet (ragwatch exam take)`, ['--exam']);
        printReport(report, values.json);
        return;
      }
      default:
        throw new ConfigError(`ragwatch exam: unknown subcommand ${sub ?? '(none)'}\n${USAGE}`, ['SUBCOMMAND']);
    }
  },
};

