/**
 * How many exam questions give what error (docs/exams.md): two releases take the same exam of Q
 * questions (a ~ U(0.5, 1.5), b ~ U(−2, 2), c = 0.25); the newer one's true ability is lower by Δ.
 * For each Q and Δ, over R simulated exams: the mean standard error of θ, and how often the regression
 * check (drop > combined standard error) fires — its false-alarm rate at Δ = 0 and its power at Δ > 0.
 *
 *   node scripts/exam-simulation.ts [--runs 100] [--z 1.96] [--ml]   (--ml: plain maximum likelihood, no priors)
 */
import { parseArgs } from 'node:util';
import { fitIrt, probability, type ExamResponse } from '../src/exams/irt.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '100' }, z: { type: 'string', default: '1.96' }, ml: { type: 'boolean', default: false } } });
const R = Number(values.runs);
const Z = Number(values.z);
let seed = 12345;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);

console.log('| questions | Δθ | mean se(θ) | regression flagged |');
console.log('|---|---|---|---|');
for (const Q of [20, 50, 100, 200]) {
  for (const delta of [0, 0.5, 1]) {
    let flagged = 0;
    let se = 0;
    for (let r = 0; r < R; r++) {
      const base = -0.5 + random();
      const thetas = [base, base - delta];
      const params = Array.from({ length: Q }, () => ({ a: 0.5 + random(), b: -2 + 4 * random(), c: 0.25 }));
      const responses: ExamResponse[] = [];
      thetas.forEach((theta, t) => params.forEach((p, q) => responses.push({ taker: `r${t}`, question: `q${q}`, correct: random() < probability(theta, p) ? 1 : 0 })));
      const fit = fitIrt(responses, { priors: !values.ml });
      const [prev, next] = [fit.takers.find((t) => t.taker === 'r0')!, fit.takers.find((t) => t.taker === 'r1')!];
      se += (prev.se + next.se) / 2;
      if (prev.theta - next.theta > Z * Math.sqrt(prev.se ** 2 + next.se ** 2)) flagged++;
    }
    console.log(`| ${Q} | ${delta} | ${(se / R).toFixed(2)} | ${((100 * flagged) / R).toFixed(0)} % |`);
  }
}
