/**
 * Worker thread of the exam monitor: the IRT fit of a report (20 takers × 1,000 questions takes
 * seconds: `npm run bench`) never runs on a serving thread.
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ExamTaker } from './exam-store.ts';
import { examReport } from './report.ts';
import type { Exam, ExamAnswer } from './types.ts';

const { exam, answers, takers, z } = workerData as { exam: Exam; answers: ExamAnswer[]; takers: ExamTaker[]; z: number };
parentPort?.postMessage(examReport(exam, answers, takers, z) ?? null);
