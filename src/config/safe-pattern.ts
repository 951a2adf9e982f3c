/**
 * Guards for operator-supplied recognizer patterns, which run on the capture path.
 * @module
 */

/**
 * Why `source` is refused as a custom recognizer pattern, or `undefined` when it is accepted.
 * Refuses patterns that do not compile and the classic catastrophic-backtracking shape: a
 * quantified group that itself contains a quantifier (`(a+)+`, `(\w*x?)*`, `(?:\.\d+){2,}`;
 * the last one is safe but refused too: the check is conservative).
 * This is a heuristic, not a proof: keep custom patterns simple and anchored on literals.
 */
export function unsafePatternReason(source: string, flags: string): string | undefined {
  try {
    new RegExp(source, `${flags}dg`);
  } catch (err) {
    return `does not compile: ${(err as Error).message}`;
  }
  // Strip escapes and character classes, then look for a group with a quantifier inside that is quantified again.
  const skeleton = source.replace(/\\./g, 'x').replace(/\[(?:[^\]\\]|\\.)*\]/g, 'x');
  const stack: boolean[] = [];
  for (let i = 0; i < skeleton.length; i++) {
    const ch = skeleton[i]!;
    if (ch === '(') stack.push(false);
    else if (ch === ')') {
      const inner = stack.pop() ?? false;
      const next = skeleton[i + 1];
      const quantified = next === '*' || next === '+' || next === '{' || next === '?';
      if (inner && quantified && next !== '?') return 'nested quantifier (catastrophic backtracking); rewrite without a repeated group that repeats inside';
      if (stack.length > 0 && (inner || quantified)) stack[stack.length - 1] = true;
    } else if ((ch === '*' || ch === '+' || ch === '{') && stack.length > 0) stack[stack.length - 1] = true;
  }
  return undefined;
}
