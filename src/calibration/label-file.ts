/**
 * Human-labels files (`ragwatch calibrate`, `ragwatch labels import`): one JSON object per line, either
 * `{"triplet": Triplet, "labels": {"groundedness": 1}, "records"?: [ScoreRecord]}` — an answer with its
 * labels — or `{"tripletId", "metric", "value", "reviewer"?}` — a label for an answer the review store
 * already holds. Answers without records are scored with the configured judges, redacted first.
 * @module
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { createRedactor } from '../capture/redaction/redact-outcome.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { ConfigError } from '../errors.ts';
import type { Judge } from '../judges/types.ts';
import { createInstruments } from '../telemetry/instruments.ts';
import { createCompanionJudge, createJudge } from '../judges/create.ts';
import { createEvaluators } from '../evaluators/create.ts';
import { scoreRecordOf } from '../scorer/score-record.ts';
import { scoreRecordSchema, tripletSchema, type SampledTriplet, type ScoreRecord, type Triplet } from '../triplet.ts';

const concept = z.string().regex(/^[a-z][a-z0-9_]*$/);
const labelValue = z.union([z.literal(0), z.literal(1), z.boolean()]).transform((v) => (v === true || v === 1 ? 1 : 0) as 0 | 1);
const answerLine = z.object({ triplet: tripletSchema, labels: z.record(concept, labelValue), records: z.array(scoreRecordSchema).optional() }).strict();
const labelLine = z.object({ tripletId: z.string().min(1).max(200), metric: concept, value: labelValue, reviewer: z.string().min(1).max(100).optional() }).strict();

/** An answer with its labels (and records when already scored). */
export interface LabelledTriplet {
  triplet: Triplet;
  labels: Record<string, 0 | 1>;
  records?: ScoreRecord[];
}

/** A label for an answer held in the store. */
export type BareLabel = z.infer<typeof labelLine>;

/**
 * The JSON values of a JSON-lines input file of `ragwatch <command>`, with their line numbers (blank
 * lines skipped). An unreadable file or a line that is not JSON throws naming it (config key `key`).
 */
export function readJsonLines(file: string, command: string, key: string): Array<{ line: number; raw: unknown }> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`ragwatch ${command}: cannot read ${file}: ${(err as Error).message}`, [key]);
  }
  const out: Array<{ line: number; raw: unknown }> = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    try {
      out.push({ line: i + 1, raw: JSON.parse(line) });
    } catch {
      throw new ConfigError(`${file}:${i + 1}: not valid JSON`, [key]);
    }
  }
  return out;
}

/** Reads a labels file; a bad line throws naming its number and key. `bare` lines are refused unless allowed. */
export function parseLabelsFile(file: string, command: string, allowBare: boolean): { answers: LabelledTriplet[]; bare: BareLabel[] } {
  const answers: LabelledTriplet[] = [];
  const bare: BareLabel[] = [];
  for (const { line: n, raw } of readJsonLines(file, command, 'LABELS')) {
    const isBare = allowBare && raw !== null && typeof raw === 'object' && 'tripletId' in raw;
    const parsed = isBare ? labelLine.safeParse(raw) : answerLine.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ConfigError(`${file}:${n}: key "${issue.path.join('.') || '(line)'}": ${issue.message}`, ['LABELS']);
    }
    if (isBare) bare.push(parsed.data as BareLabel);
    else {
      const a = parsed.data as z.infer<typeof answerLine>;
      answers.push({ triplet: a.triplet, labels: a.labels, ...(a.records ? { records: a.records } : {}) });
    }
  }
  return { answers, bare };
}

/**
 * Scores the answers that carry no records with the configured judge (and the embedded companion),
 * redacted like captured traffic; returns records and the redacted triplets by triplet id.
 */
export async function scoreLabelled(answers: readonly LabelledTriplet[], config: RagwatchConfig): Promise<{ records: Map<string, ScoreRecord[]>; redacted: Map<string, SampledTriplet> }> {
  const redactor = createRedactor(config.redaction);
  const records = new Map<string, ScoreRecord[]>();
  const redacted = new Map<string, SampledTriplet>();
  const todo: Array<{ a: LabelledTriplet; t: SampledTriplet }> = [];
  for (const a of answers) {
    const sampled: SampledTriplet = { ...a.triplet, sampling: { weight: 1, stratum: 'labels', rule: 'labels' } };
    const r = redactor.redact(sampled);
    if (!r.ok) continue;
    const t = { ...r.triplet, sampling: sampled.sampling };
    redacted.set(a.triplet.id, t);
    if (a.records) records.set(a.triplet.id, a.records);
    else todo.push({ a, t });
  }
  if (todo.length === 0) return { records, redacted };
  const instruments = createInstruments({ processMetrics: false });
  const judges = [createJudge(config, { instruments, requireModel: true }), createCompanionJudge(config)].filter((j): j is Judge => j !== undefined);
  const evaluators = createEvaluators(config);
  try {
    await Promise.all(judges.map((j) => j.init()));
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < todo.length; i = next++) {
        const { a, t } = todo[i]!;
        const out: ScoreRecord[] = [];
        for (const judge of judges) {
          const result = await judge.score(t);
          // The configured evaluators' checks on every record; an llm evaluator the judge did not score, skipped.
          if (result.ok) out.push(scoreRecordOf(t, judge, result, undefined, evaluators && (judge === judges[0] ? evaluators.forRecord(t, judge.kind, result) : evaluators.check(t))));
        }
        records.set(a.triplet.id, out);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(config.judge.concurrency, todo.length)) }, worker));
  } finally {
    await Promise.all(judges.map((j) => j.shutdown()));
  }
  return { records, redacted };
}
