/**
 * Builds the exam monitor of a long-running role from `exams.*`: the exam files loaded (a bad one
 * throws naming it), the store opened. Undefined when no exam is configured.
 * @module
 */
import type { Registry } from 'prom-client';
import { loadExam } from './load-exam.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import type { Logger } from '../log.ts';
import { openExamStore } from './exam-store.ts';
import { ExamMonitor } from './monitor.ts';

/** The monitor of `exams.files`, started; undefined without files. */
export async function createExamMonitor(config: RagwatchConfig, registry: Registry, logger: Logger): Promise<ExamMonitor | undefined> {
  if (config.exams.files.length === 0) return undefined;
  const exams = config.exams.files.map((f) => loadExam(f));
  const monitor = new ExamMonitor({ exams, store: await openExamStore(config), registry, refreshIntervalMs: config.exams.refreshIntervalMs, maxTakers: config.exams.maxTakers, regressionZ: config.exams.regressionZ, logger });
  monitor.start();
  return monitor;
}
