/**
 * `ragwatch weaknesses FILE.jsonl`: where the service fails, offline (HCAT §6.2; docs/weaknesses.md).
 * Questions get topics (bundled embedding model + spherical k-means, named by class-based TF-IDF) and
 * question types (rules); every metric is broken down by topic, question type, route, model and release, and
 * the groundedness-type metrics by topic × question type; cells worse than the rest are flagged with
 * Benjamini–Hochberg control.
 * @module
 */
import { parseArgs } from 'node:util';
import { readJsonLines, scoreLabelled, type LabelledTriplet } from '../calibration/label-file.ts';
import { loadConfig } from '../config/load.ts';
import { ConfigError } from '../errors.ts';
import { sharedEmbedder } from '../judges/embedded/cached-embedder.ts';
import { scoreRecordSchema, tripletSchema } from '../triplet.ts';
import { describeCell, type ScoredAnswer } from '../weakness/cells.ts';
import { weaknessCells } from '../weakness/columns.ts';
import { queryType } from '../weakness/query-type.ts';
import { embedQuestions, fitTopics } from '../weakness/topics.ts';
import type { Command } from './types.ts';

export const weaknessesCommand: Command = {
  name: 'weaknesses',
  summary: 'where the service fails: every metric by topic, question type, route, model and release, weak cells flagged',
  usage: `usage: ragwatch weaknesses FILE.jsonl [--json] [--topics K] [--min-count N] [-c FILE]

Each line is a Triplet, or {"triplet": Triplet, "records": [ScoreRecord]} when already scored (others
are scored with the configured judge, redacted first). Questions get topics (K clusters of the bundled
embedding model's vectors, default 12, named by their most distinctive words) and question types
(what / who / when / where / why / how / yes_no / comparison / list / numeric / other). Every metric is
broken down by topic, question type, route, model and release (service.version), the groundedness-type metrics also by topic x
question type; a cell is flagged when it is worse than the rest of the answers (one-sided Welch test,
Benjamini-Hochberg at 5 % over all cells, at least --min-count answers, its 95 % interval below the rest).

  --json         one object: {topics: [{id, label, n}], cells: [{metric, judge, dimensions, n, mean,
                 ciLow, ciHigh, restMean, q, flagged}], assignments: [{tripletId, topic, queryType}]}
  --topics K     number of topics (default 12)
  --min-count N  answers a cell needs to be flagged (default 20)`,
  async run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean', default: false }, topics: { type: 'string', default: '12' }, 'min-count': { type: 'string', default: '20' }, config: { type: 'string', short: 'c' } } });
    if (positionals.length !== 1) throw new ConfigError(`ragwatch weaknesses: expected one FILE.jsonl argument\n${weaknessesCommand.usage}`, ['FILE']);
    const k = Number(values.topics);
    const minCount = Number(values['min-count']);
    if (!Number.isInteger(k) || k < 1 || k > 100) throw new ConfigError('ragwatch weaknesses: --topics must be an integer in [1,100]', ['--topics']);
    if (!Number.isInteger(minCount) || minCount < 2) throw new ConfigError('ragwatch weaknesses: --min-count must be an integer >= 2', ['--min-count']);
    const config = loadConfig({ ...(values.config ? { file: values.config } : {}), offline: true });
    const file = positionals[0]!;
    const answers: LabelledTriplet[] = [];
    for (const { line, raw } of readJsonLines(file, 'weaknesses', 'FILE')) {
      const obj = raw as { triplet?: unknown; records?: unknown } | null;
      const wrapped = obj !== null && typeof obj === 'object' && 'triplet' in obj;
      const t = tripletSchema.safeParse(wrapped ? obj.triplet : raw);
      const r = wrapped && 'records' in obj ? scoreRecordSchema.array().safeParse(obj.records) : undefined;
      const issue = !t.success ? t.error.issues[0] : r && !r.success ? r.error.issues[0] : undefined;
      if (issue) throw new ConfigError(`${file}:${line}: key "${issue.path.join('.')}": ${issue.message}`, ['FILE']);
      answers.push({ triplet: t.data!, labels: {}, ...(r?.success ? { records: r.data } : {}) });
    }
    if (answers.length === 0) throw new ConfigError(`ragwatch weaknesses: ${file} holds no answer`, ['FILE']);
    const { records } = await scoreLabelled(answers, config);
    // The shared model pool: its idle workers are unref'd, so the command exits when done.
    const embedder = await sharedEmbedder(config.judge.embedded.threads);
    const vectors = await embedQuestions(embedder, answers.map((a) => a.triplet.query));
    const { model, assignments } = fitTopics(answers.map((a) => a.triplet.query), vectors, k);
    const topicOf = (i: number) => `t${assignments[i]}`;
    const assigned = answers.map((a, i) => ({ tripletId: a.triplet.id, topic: topicOf(i), queryType: queryType(a.triplet.query) }));
    const scored: ScoredAnswer[] = answers.flatMap((a, i) =>
      (records.get(a.triplet.id) ?? []).map((rec) => ({
        tripletId: a.triplet.id,
        judge: rec.judge.kind,
        weight: rec.weight,
        scores: rec.scores,
        dims: { topic: assigned[i]!.topic, queryType: assigned[i]!.queryType, ...(a.triplet.route ? { route: a.triplet.route } : {}), ...(a.triplet.model ? { model: a.triplet.model } : {}), ...(a.triplet.release ? { release: a.triplet.release } : {}) },
      })),
    );
    const cells = weaknessCells(scored, { bivariateMetrics: config.weakness.bivariateMetrics, minCount }).map(({ worst: _worst, ...c }) => c);
    const topics = model.labels.map((label, i) => ({ id: `t${i}`, label, n: assignments.filter((a) => a === i).length }));
    if (values.json) {
      process.stdout.write(`${JSON.stringify({ topics, cells, assignments: assigned })}\n`);
      return;
    }
    const topicLabel = (id: string) => topics.find((t) => t.id === id)?.label;
    const flagged = cells.filter((c) => c.flagged);
    const lines = [
      `${answers.length} answers, ${topics.length} topics: ${topics.map((t) => `${t.id} "${t.label}" (${t.n})`).join(', ')}`,
      '',
      flagged.length > 0 ? `flagged (worse than the rest, BH q ≤ 0.05, n ≥ ${minCount}):` : `no cell is flagged (BH q ≤ 0.05, n ≥ ${minCount})`,
      ...flagged.map((c) => `  ${c.metric} (${c.judge}) ${describeCell(c, topicLabel)}`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  },
};
