/**
 * Fault-suite figures: one JSON line per measured figure on stdout, e.g.
 * `{"fault":"fuzz","figure":"crashes","value":0,"inputs":12000}`. docs/reliability.md quotes them.
 */

/** One measured figure of a fault case. */
export interface Figure {
  fault: string;
  figure: string;
  value: number;
  [extra: string]: unknown;
}

/** Prints a figure as a JSON line (written synchronously so it is never lost or interleaved). */
export function reportFigure(figure: Figure): void {
  process.stdout.write(`${JSON.stringify(figure)}\n`);
}
