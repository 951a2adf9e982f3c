/** L-BFGS on functions with known minima: a badly scaled quadratic and Rosenbrock's valley. */
import { describe, expect, it } from 'vitest';
import { lbfgs } from '../../src/exams/lbfgs.ts';

describe('lbfgs', () => {
  it('finds the minimum of a badly scaled quadratic', () => {
    const scale = [1, 10, 100, 1000];
    const target = [1, -2, 3, -4];
    const r = lbfgs((x, g) => {
      let f = 0;
      x.forEach((v, i) => {
        f += scale[i]! * (v - target[i]!) ** 2;
        g[i] = 2 * scale[i]! * (v - target[i]!);
      });
      return f;
    }, [0, 0, 0, 0]);
    expect(r.converged).toBe(true);
    r.x.forEach((v, i) => expect(v).toBeCloseTo(target[i]!, 5));
  });

  it('follows Rosenbrock\'s valley to (1, 1)', () => {
    const r = lbfgs((x, g) => {
      const [a, b] = [x[0]!, x[1]!];
      g[0] = -2 * (1 - a) - 400 * a * (b - a * a);
      g[1] = 200 * (b - a * a);
      return (1 - a) ** 2 + 100 * (b - a * a) ** 2;
    }, [-1.2, 1], { maxIterations: 2_000 });
    expect(r.x[0]).toBeCloseTo(1, 3);
    expect(r.x[1]).toBeCloseTo(1, 3);
    expect(r.fx).toBeLessThan(1e-8);
  });
});
