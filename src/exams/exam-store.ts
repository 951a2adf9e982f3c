/**
 * Exam answers in the embedded store (`store.dataDir`/ragwatch.sqlite, table `exam_answers`): one row
 * per exam, version, taker and question — a retake replaces the taker's earlier answer — bounded by
 * `maxAnswers` (oldest evicted, counted). Every value is a bound SQL parameter.
 * @module
 */
import { resolve } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { RagwatchConfig } from '../config/schema.ts';
import { ConfigError, errorMessage } from '../errors.ts';
import { openStoreDatabase } from '../store/sqlite.ts';
import type { ExamAnswer, ExamOutcome } from './types.ts';

/** A taker of an exam version, in the order they first took it. */
export interface ExamTaker {
  taker: string;
  firstMs: number;
  lastMs: number;
  answers: number;
}

export class ExamStore {
  readonly #db: DatabaseSync;
  readonly #max: number;
  readonly #st: Record<'upsert' | 'count' | 'evict' | 'answers' | 'takers' | 'exams', StatementSync>;
  #evicted = 0;

  constructor(db: DatabaseSync, maxAnswers = 200_000) {
    this.#db = db;
    this.#max = maxAnswers;
    db.exec(`CREATE TABLE IF NOT EXISTS exam_answers (exam TEXT NOT NULL, version INTEGER NOT NULL, taker TEXT NOT NULL, question TEXT NOT NULL, outcome TEXT NOT NULL, at_ms INTEGER NOT NULL, PRIMARY KEY (exam, version, taker, question));
      CREATE INDEX IF NOT EXISTS exam_answers_at ON exam_answers (at_ms);`);
    const p = (sql: string) => db.prepare(sql);
    this.#st = {
      upsert: p('INSERT INTO exam_answers (exam, version, taker, question, outcome, at_ms) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (exam, version, taker, question) DO UPDATE SET outcome = excluded.outcome, at_ms = excluded.at_ms'),
      count: p('SELECT COUNT(*) AS n FROM exam_answers'),
      evict: p('DELETE FROM exam_answers WHERE rowid IN (SELECT rowid FROM exam_answers ORDER BY at_ms, rowid LIMIT ?)'),
      answers: p('SELECT exam, version, taker, question, outcome, at_ms AS atMs FROM exam_answers WHERE exam = ? AND version = ? ORDER BY taker, question'),
      takers: p('SELECT taker, MIN(at_ms) AS firstMs, MAX(at_ms) AS lastMs, COUNT(*) AS answers FROM exam_answers WHERE exam = ? AND version = ? GROUP BY taker ORDER BY firstMs, taker'),
      exams: p('SELECT exam, MAX(version) AS version FROM exam_answers GROUP BY exam ORDER BY exam'),
    };
  }

  /** Stores a taker's answers (one transaction). */
  add(answers: readonly ExamAnswer[]): void {
    this.#db.exec('BEGIN');
    try {
      for (const a of answers) this.#st.upsert.run(a.exam, a.version, a.taker, a.question, a.outcome, a.atMs);
      this.#db.exec('COMMIT');
    } catch (err) {
      this.#db.exec('ROLLBACK');
      throw err;
    }
    const over = Number((this.#st.count.get() as { n: number }).n) - this.#max;
    if (over > 0) {
      this.#st.evict.run(over);
      this.#evicted += over;
    }
  }

  /** Every answer of an exam version. */
  answers(exam: string, version: number): ExamAnswer[] {
    return (this.#st.answers.all(exam, version) as unknown as Array<ExamAnswer & { outcome: ExamOutcome }>).map((r) => ({ ...r, version: Number(r.version), atMs: Number(r.atMs) }));
  }

  /** The takers of an exam version, first-taken first. */
  takers(exam: string, version: number): ExamTaker[] {
    return (this.#st.takers.all(exam, version) as unknown as ExamTaker[]).map((t) => ({ taker: t.taker, firstMs: Number(t.firstMs), lastMs: Number(t.lastMs), answers: Number(t.answers) }));
  }

  /** Every exam with answers, at its latest version. */
  exams(): Array<{ exam: string; version: number }> {
    return (this.#st.exams.all() as Array<{ exam: string; version: number }>).map((e) => ({ exam: e.exam, version: Number(e.version) }));
  }

  /** Answers evicted by the bound since the store was opened. */
  get evicted(): number {
    return this.#evicted;
  }
}

/** The exam answers of `config.store` (the same SQLite file, table exam_answers); throws naming the key when it cannot be opened. */
export async function openExamStore(config: RagwatchConfig): Promise<ExamStore> {
  const dir = resolve(config.store.dataDir);
  try {
    return new ExamStore(await openStoreDatabase(dir), config.store.maxExamAnswers);
  } catch (err) {
    throw new ConfigError(`cannot open the store in ${dir} (config key "store.dataDir", env RAGWATCH_DATA_DIR): ${errorMessage(err)}`, ['store.dataDir']);
  }
}
