/**
 * The regression verdict on simulated releases with known abilities: with no change in ability it
 * rarely fires (false alarms), with a real drop it usually does (power) — the rates docs/exams.md
 * states; and the report counts unparsed answers apart and breaks accuracy down by category.
 */
import { describe, expect, it } from 'vitest';
import { probability } from '../../src/exams/irt.ts';
import { examReport } from '../../src/exams/report.ts';
import type { Exam, ExamAnswer } from '../../src/exams/types.ts';
import { rng } from '../helpers/rng.ts';

function releases(seed: number, questions: number, delta: number) {
  const random = rng(seed);
  const base = -0.5 + random();
  const items = Array.from({ length: questions }, (_, i) => ({ id: `q${i}`, a: 0.5 + random(), b: -2 + 4 * random(), c: 0.25 }));
  const exam: Exam = { exam: 'sim', version: 1, items: items.map((i) => ({ id: i.id, question: `Question ${i.id}?`, options: ['a', 'b', 'c', 'd'], answer: 'A', bloom: i.id.endsWith('0') ? ['analyzing'] : ['remembering'], questionWord: 'what' })) };
  const answers: ExamAnswer[] = [];
  [base, base - delta].forEach((theta, t) => items.forEach((i) => answers.push({ exam: 'sim', version: 1, taker: `r${t}`, question: i.id, outcome: random() < probability(theta, i) ? 'correct' : 'wrong', atMs: t })));
  return { exam, answers, takers: [0, 1].map((t) => ({ taker: `r${t}`, firstMs: t, lastMs: t, answers: questions })) };
}

const rate = (questions: number, delta: number, runs: number) => {
  let flagged = 0;
  for (let s = 0; s < runs; s++) {
    const { exam, answers, takers } = releases(1_000 * questions + 10 * delta + s, questions, delta);
    if (examReport(exam, answers, takers)!.regression!.regressed) flagged++;
  }
  return flagged / runs;
};

describe('exam regression verdict', () => {
  it('rarely fires when nothing changed, and catches a one-point drop with 200 questions', () => {
    expect(rate(50, 0, 60)).toBeLessThanOrEqual(0.08);
    expect(rate(200, 1, 30)).toBeGreaterThanOrEqual(0.75);
  }, 60_000);

  it('counts unparsed answers apart and breaks accuracy down by Bloom category', () => {
    const { exam, answers, takers } = releases(7, 40, 0);
    answers.push({ ...answers[0]!, question: 'q0', taker: 'r1', outcome: 'unparsed' });
    const r = examReport(exam, answers.filter((_, i) => i !== 40), takers)!;
    expect(r.takers.find((t) => t.taker === 'r1')!.unparsed).toBe(1);
    expect(r.takers.find((t) => t.taker === 'r1')!.answered).toBe(39);
    expect(Object.keys(r.takers[0]!.byBloom).sort()).toEqual(['analyzing', 'remembering']);
    expect(r.takers[0]!.byBloom.analyzing!.n).toBe(4);
    expect(r.information).toHaveLength(25);
  });
});
