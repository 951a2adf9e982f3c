/**
 * Exam IRT cost (bench runner: bench/run.ts): the 3PL fit of 20 exam-takers × 1,000 questions (20,000
 * answers, simulated from known parameters) — what the exam monitor's worker thread spends when the
 * answers change; it never runs on a serving thread. Reported with the θ correlation to the truth.
 */
import { fitIrt, probability, type ExamResponse } from '../src/exams/irt.ts';
import { QUICK, emit, median } from './lib.ts';

function simulate(takers: number, items: number, seed: number) {
  let s = seed;
  const random = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const thetas = Array.from({ length: takers }, (_, t) => -2 + (4 * t) / (takers - 1));
  const params = Array.from({ length: items }, () => ({ a: 0.5 + random(), b: -2 + 4 * random(), c: 0.25 }));
  const responses: ExamResponse[] = [];
  thetas.forEach((theta, t) => params.forEach((p, q) => responses.push({ taker: `r${t}`, question: `q${q}`, correct: random() < probability(theta, p) ? 1 : 0 })));
  return { thetas, responses };
}

const items = QUICK ? 200 : 1_000;
const ms: number[] = [];
let correlation = 0;
for (let rep = 0; rep < (QUICK ? 1 : 3); rep++) {
  const { thetas, responses } = simulate(20, items, 17 + rep);
  const started = performance.now();
  const fit = fitIrt(responses);
  ms.push(performance.now() - started);
  const est = fit.takers.sort((a, b) => Number(a.taker.slice(1)) - Number(b.taker.slice(1))).map((t) => t.theta);
  const m1 = est.reduce((x, y) => x + y, 0) / est.length;
  const m2 = thetas.reduce((x, y) => x + y, 0) / thetas.length;
  const cov = est.reduce((x, v, i) => x + (v - m1) * (thetas[i]! - m2), 0);
  correlation = cov / Math.sqrt(est.reduce((x, v) => x + (v - m1) ** 2, 0) * thetas.reduce((x, v) => x + (v - m2) ** 2, 0));
}
emit({ bench: 'exams', figure: `irt_fit_ms_20_takers_${items}_questions`, value: median(ms), unit: 'ms', baseline: null, ratio: null });
emit({ bench: 'exams', figure: 'irt_theta_correlation', value: correlation, unit: 'r', baseline: null, ratio: null });
