/**
 * L-BFGS minimisation (Nocedal & Wright, Algorithm 7.4: two-loop recursion, Armijo backtracking) for
 * the IRT likelihood. Written here because npm has no maintained optimiser usable from Node ESM:
 * fmin 0.0.4's published build exports nothing when imported as a module, and numeric was last
 * released in 2012. Tested on functions with known minima (tests/exams/lbfgs.test.ts).
 * @module
 */

/** The objective: returns f(x) and writes ∇f(x) into `grad`. */
export type Objective = (x: readonly number[], grad: number[]) => number;

/** Options; all optional. */
export interface LbfgsOptions {
  /** Iterations at most. Default 500. */
  maxIterations?: number;
  /** Stop when the gradient's largest component is below this. Default 1e-6. */
  gradientTolerance?: number;
  /** Correction pairs kept. Default 10. */
  memory?: number;
}

/** The minimum found. */
export interface LbfgsResult {
  x: number[];
  fx: number;
  iterations: number;
  converged: boolean;
}

const dot = (a: readonly number[], b: readonly number[]) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/** Minimises `f` from `x0`. */
export function lbfgs(f: Objective, x0: readonly number[], options: LbfgsOptions = {}): LbfgsResult {
  const n = x0.length;
  const m = options.memory ?? 10;
  const tol = options.gradientTolerance ?? 1e-6;
  let x = [...x0];
  let g = new Array<number>(n).fill(0);
  let fx = f(x, g);
  const ss: number[][] = [];
  const ys: number[][] = [];
  const rhos: number[] = [];
  let it = 0;
  for (; it < (options.maxIterations ?? 500); it++) {
    let gmax = 0;
    for (const v of g) gmax = Math.max(gmax, Math.abs(v));
    if (gmax < tol) return { x, fx, iterations: it, converged: true };
    // Two-loop recursion: d = −H·g.
    const q = [...g];
    const alphas: number[] = [];
    for (let k = ss.length - 1; k >= 0; k--) {
      const a = rhos[k]! * dot(ss[k]!, q);
      alphas[k] = a;
      for (let i = 0; i < n; i++) q[i]! -= a * ys[k]![i]!;
    }
    const gamma = ss.length > 0 ? dot(ss.at(-1)!, ys.at(-1)!) / dot(ys.at(-1)!, ys.at(-1)!) : 1 / Math.max(1, Math.sqrt(dot(g, g)));
    for (let i = 0; i < n; i++) q[i]! *= gamma;
    for (let k = 0; k < ss.length; k++) {
      const b = rhos[k]! * dot(ys[k]!, q);
      for (let i = 0; i < n; i++) q[i]! += ss[k]![i]! * (alphas[k]! - b);
    }
    let d = q.map((v) => -v);
    let slope = dot(g, d);
    if (!(slope < 0)) {
      // Not a descent direction (curvature information gone bad): restart from steepest descent.
      ss.length = ys.length = rhos.length = 0;
      d = g.map((v) => -v);
      slope = -dot(g, g);
    }
    let step = 1;
    const xn = new Array<number>(n);
    const gn = new Array<number>(n).fill(0);
    let fn = Infinity;
    for (let tries = 0; tries < 40; tries++) {
      for (let i = 0; i < n; i++) xn[i] = x[i]! + step * d[i]!;
      fn = f(xn, gn);
      if (Number.isFinite(fn) && fn <= fx + 1e-4 * step * slope) break;
      step /= 2;
    }
    if (!(fn < fx)) return { x, fx, iterations: it, converged: false };
    const s = xn.map((v, i) => v - x[i]!);
    const y = gn.map((v, i) => v - g[i]!);
    const sy = dot(s, y);
    if (sy > 1e-12) {
      ss.push(s);
      ys.push(y);
      rhos.push(1 / sy);
      if (ss.length > m) {
        ss.shift();
        ys.shift();
        rhos.shift();
      }
    }
    const improvement = fx - fn;
    x = xn;
    g = gn;
    fx = fn;
    if (improvement < 1e-12 * Math.max(1, Math.abs(fx))) return { x, fx, iterations: it + 1, converged: true };
  }
  return { x, fx, iterations: it, converged: false };
}
