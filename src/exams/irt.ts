/**
 * Item response theory for exams (Guinet et al., §3.3 and appendix B): the three-parameter logistic
 * model P(correct | θ) = c + (1 − c) / (1 + exp(−a (θ − b))), fitted by joint maximum likelihood over
 * every taker's ability θ and every question's discrimination a, difficulty b and guessing c, with the
 * paper's bounds (0.1 ≤ a ≤ 1.5, 0.2 ≤ c ≤ 0.4 for four options, −3 ≤ θ ≤ 3; b in [−3, 3], where the
 * paper's [0.01, 1] would keep difficulties away from most abilities). The bounds are enforced by
 * smooth reparametrisation (x = lo + (hi − lo)·σ(u)), minimised with L-BFGS on the analytic gradient
 * (the paper uses L-BFGS-B on the bounded parameters). θ's standard error is 1/√(test information at θ̂).
 * @module
 */
import { lbfgs } from './lbfgs.ts';

/** One answer: `correct` is 1 or 0 (unparsed answers are left out before fitting). */
export interface ExamResponse {
  taker: string;
  question: string;
  correct: 0 | 1;
}

/** Bounds of the parameters. */
export interface IrtBounds {
  a: readonly [number, number];
  b: readonly [number, number];
  c: readonly [number, number];
  theta: readonly [number, number];
}

/** The paper's bounds for four-option questions (b widened to θ's range). */
export const DEFAULT_BOUNDS: IrtBounds = { a: [0.1, 1.5], b: [-3, 3], c: [0.2, 0.4], theta: [-3, 3] };

/** A fitted question. */
export interface ItemParameters {
  question: string;
  a: number;
  b: number;
  c: number;
  /** Answers it had. */
  n: number;
}

/** A fitted exam-taker. */
export interface TakerAbility {
  taker: string;
  theta: number;
  /** Standard error of θ: 1/√I(θ̂) over the questions it answered. */
  se: number;
  accuracy: number;
  n: number;
}

/** The fit. */
export interface IrtFit {
  takers: TakerAbility[];
  questions: ItemParameters[];
  /** Mean negative log-likelihood per answer at the optimum. */
  nllPerAnswer: number;
  iterations: number;
  /** False when the optimiser stopped at its iteration limit. */
  converged: boolean;
}

/** P(correct) under the 3PL model. */
export function probability(theta: number, item: Pick<ItemParameters, 'a' | 'b' | 'c'>): number {
  return item.c + (1 - item.c) / (1 + Math.exp(-item.a * (theta - item.b)));
}

/** Item information at θ (the paper's Eq. 3). */
export function itemInformation(theta: number, item: Pick<ItemParameters, 'a' | 'b' | 'c'>): number {
  const p = probability(theta, item);
  return (item.a * item.a * (p - item.c) ** 2 * (1 - p)) / ((1 - item.c) ** 2 * p);
}

/** The exam's mean item information at θ (the paper's Eq. 4). */
export function examInformation(theta: number, items: ReadonlyArray<Pick<ItemParameters, 'a' | 'b' | 'c'>>): number {
  return items.length === 0 ? 0 : items.reduce((s, i) => s + itemInformation(theta, i), 0) / items.length;
}

const sigmoid = (u: number) => 1 / (1 + Math.exp(-u));
const logit = (p: number) => Math.log(p / (1 - p));
const to = (u: number, [lo, hi]: readonly [number, number]) => lo + (hi - lo) * sigmoid(u);
const from = (x: number, [lo, hi]: readonly [number, number]) => logit(Math.min(0.999, Math.max(0.001, (x - lo) / (hi - lo))));
/** d x / d u of {@link to}. */
const slope = (u: number, [lo, hi]: readonly [number, number]) => {
  const s = sigmoid(u);
  return (hi - lo) * s * (1 - s);
};

/** Options of {@link fitIrt}; all optional. */
export interface IrtOptions {
  bounds?: IrtBounds;
  /** Weak priors (MAP; θ ~ N(0,1), b ~ N(0,2²), ln a ~ N(0,0.5²), c ~ Beta(5,15)): keep few takers from overfitting. Default false. */
  priors?: boolean;
  /** L-BFGS iterations at most. Default 3000 (the reparametrised likelihood is ill-conditioned: 1,000–2,000 are common). */
  maxIterations?: number;
}

/** Fits the 3PL model to every response (joint maximum likelihood). Throws when there is nothing to fit. */
export function fitIrt(responses: readonly ExamResponse[], options: IrtOptions = {}): IrtFit {
  const bounds = options.bounds ?? DEFAULT_BOUNDS;
  const priors = options.priors ?? false;
  const takers = [...new Set(responses.map((r) => r.taker))].sort();
  const questions = [...new Set(responses.map((r) => r.question))].sort();
  if (takers.length === 0 || questions.length === 0) throw new Error('no responses to fit');
  const ti = new Map(takers.map((t, i) => [t, i]));
  const qi = new Map(questions.map((q, i) => [q, i]));
  const T = takers.length;
  const Q = questions.length;
  const obs = responses.map((r) => [ti.get(r.taker)!, qi.get(r.question)!, r.correct] as const);
  // Layout: θ_t (T), then per question (u_a, u_b, u_c).
  const x0 = new Array<number>(T + 3 * Q);
  for (let t = 0; t < T; t++) x0[t] = from(0, bounds.theta);
  for (let q = 0; q < Q; q++) {
    x0[T + 3 * q] = from(1, bounds.a);
    x0[T + 3 * q + 1] = from(0, bounds.b);
    x0[T + 3 * q + 2] = from(0.25, bounds.c);
  }
  // Parameters and d(parameter)/d(u) per taker and question, computed once per evaluation, not per answer.
  const th = new Float64Array(T);
  const dth = new Float64Array(T);
  const pa = new Float64Array(Q);
  const da = new Float64Array(Q);
  const pb = new Float64Array(Q);
  const db = new Float64Array(Q);
  const pc = new Float64Array(Q);
  const dc = new Float64Array(Q);
  const f = (x: readonly number[], grad: number[]): number => {
    grad.fill(0);
    for (let t = 0; t < T; t++) {
      th[t] = to(x[t]!, bounds.theta);
      dth[t] = slope(x[t]!, bounds.theta);
    }
    for (let q = 0; q < Q; q++) {
      const k = T + 3 * q;
      pa[q] = to(x[k]!, bounds.a);
      da[q] = slope(x[k]!, bounds.a);
      pb[q] = to(x[k + 1]!, bounds.b);
      db[q] = slope(x[k + 1]!, bounds.b);
      pc[q] = to(x[k + 2]!, bounds.c);
      dc[q] = slope(x[k + 2]!, bounds.c);
    }
    let nll = 0;
    if (priors) {
      // MAP: θ ~ N(0, 1), b ~ N(0, 2²), ln a ~ N(0, 0.5²), c ~ Beta(5, 15) (mean 0.25), on the natural scale.
      for (let t = 0; t < T; t++) {
        nll += th[t]! ** 2 / 2;
        grad[t]! += th[t]! * dth[t]!;
      }
      for (let q = 0; q < Q; q++) {
        const k = T + 3 * q;
        const la = Math.log(pa[q]!);
        nll += la ** 2 / 0.5 + pb[q]! ** 2 / 8 - 4 * Math.log(pc[q]!) - 14 * Math.log(1 - pc[q]!);
        grad[k]! += ((2 * la) / (0.5 * pa[q]!)) * da[q]!;
        grad[k + 1]! += (pb[q]! / 4) * db[q]!;
        grad[k + 2]! += (-4 / pc[q]! + 14 / (1 - pc[q]!)) * dc[q]!;
      }
    }
    for (const [t, q, y] of obs) {
      const theta = th[t]!;
      const a = pa[q]!;
      const b = pb[q]!;
      const c = pc[q]!;
      const s = sigmoid(a * (theta - b));
      const p = Math.min(1 - 1e-9, Math.max(1e-9, c + (1 - c) * s));
      nll -= y === 1 ? Math.log(p) : Math.log(1 - p);
      // d(−log L)/dp, then the chain rule through p(θ, a, b, c) and the reparametrisation.
      const dp = y === 1 ? -1 / p : 1 / (1 - p);
      const ds = dp * (1 - c) * s * (1 - s);
      const k = T + 3 * q;
      grad[t]! += ds * a * dth[t]!;
      grad[k]! += ds * (theta - b) * da[q]!;
      grad[k + 1]! += ds * -a * db[q]!;
      grad[k + 2]! += dp * (1 - s) * dc[q]!;
    }
    return nll;
  };
  const solution = lbfgs(f, x0, { maxIterations: options.maxIterations ?? 3_000 });
  const x = solution.x;
  const items: ItemParameters[] = questions.map((question, q) => ({ question, a: to(x[T + 3 * q]!, bounds.a), b: to(x[T + 3 * q + 1]!, bounds.b), c: to(x[T + 3 * q + 2]!, bounds.c), n: 0 }));
  const answered = takers.map(() => [] as number[]);
  const right = new Array<number>(T).fill(0);
  for (const [t, q, y] of obs) {
    answered[t]!.push(q);
    right[t]! += y;
    items[q]!.n++;
  }
  const fitted = takers.map((taker, t) => {
    const theta = to(x[t]!, bounds.theta);
    const info = answered[t]!.reduce((s, q) => s + itemInformation(theta, items[q]!), 0);
    return { taker, theta, se: info > 0 ? 1 / Math.sqrt(info) : Infinity, accuracy: right[t]! / answered[t]!.length, n: answered[t]!.length };
  });
  return { takers: fitted, questions: items, nllPerAnswer: solution.fx / obs.length, iterations: solution.iterations, converged: solution.converged };
}

/** One round of {@link refineExam}. */
export interface RefineRound {
  round: number;
  questions: number;
  meanDiscrimination: number;
  dropped: string[];
}

/**
 * The paper's iterative exam improvement (Algorithm 1): fit, drop the least discriminative `dropShare`
 * of the questions, refit — `rounds` times. Returns every round and the final fit.
 */
export function refineExam(responses: readonly ExamResponse[], options: IrtOptions & { rounds?: number; dropShare?: number; minQuestions?: number } = {}): { rounds: RefineRound[]; fit: IrtFit; kept: string[] } {
  const rounds: RefineRound[] = [];
  let kept = new Set(responses.map((r) => r.question));
  let fit = fitIrt(responses, options);
  for (let round = 1; round <= (options.rounds ?? 3); round++) {
    const byA = [...fit.questions].sort((p, q) => p.a - q.a);
    const drop = Math.floor(byA.length * (options.dropShare ?? 0.1));
    const meanDiscrimination = byA.reduce((s, q) => s + q.a, 0) / byA.length;
    if (drop === 0 || byA.length - drop < (options.minQuestions ?? 10)) {
      rounds.push({ round, questions: byA.length, meanDiscrimination, dropped: [] });
      break;
    }
    const dropped = byA.slice(0, drop).map((q) => q.question);
    rounds.push({ round, questions: byA.length, meanDiscrimination, dropped });
    kept = new Set([...kept].filter((q) => !dropped.includes(q)));
    fit = fitIrt(responses.filter((r) => kept.has(r.question)), options);
  }
  return { rounds, fit, kept: [...kept].sort() };
}
