/**
 * Reads and writes a saved calibration (`ragwatch calibrate --out FILE`, `calibration.file`): JSON,
 * validated with zod, so a hand-edited or truncated file fails naming the entry and key.
 * @module
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import type { CalibrationModel } from './types.ts';
import { ConfigError } from '../errors.ts';

const finite = z.number().finite();
const modelSchema = z
  .object({
    metric: z.string().min(1),
    judge: z.string().min(1),
    labelMetric: z.string().min(1),
    map: z.discriminatedUnion('method', [
      z.object({ method: z.literal('platt'), a: finite, b: finite }).strict(),
      z
        .object({ method: z.literal('isotonic'), x: z.array(finite).min(1), y: z.array(z.number().min(0).max(1)).min(1) })
        .strict()
        .refine((m) => m.x.length === m.y.length && m.x.every((v, i) => i === 0 || v > m.x[i - 1]!) && m.y.every((v, i) => i === 0 || v >= m.y[i - 1]!), 'x ascending, y non-decreasing, same length'),
    ]),
    conformal: z.object({ alpha: z.number().gt(0).lt(1), qhat: z.number().min(0).max(1), n: z.number().int().positive() }).strict(),
    n: z.number().int().positive(),
    brier: z.number().min(0).max(1).nullable(),
    fittedAt: z.string(),
  })
  .strict();
const fileSchema = z.object({ version: z.literal(1), calibrations: z.array(modelSchema) }).strict();

/** Loads a calibration file. @throws ConfigError naming `calibration.file` and the bad key. */
export function loadCalibrationFile(file: string): CalibrationModel[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`config key "calibration.file": cannot read ${file} as JSON: ${(err as Error).message}`, ['calibration.file']);
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`config key "calibration.file": ${file}: key "${issue.path.join('.')}": ${issue.message}`, ['calibration.file']);
  }
  return parsed.data.calibrations as CalibrationModel[];
}

/** Writes a calibration file (pretty JSON, reviewable in git). */
export function saveCalibrationFile(file: string, calibrations: readonly CalibrationModel[]): void {
  writeFileSync(file, `${JSON.stringify({ version: 1, calibrations }, null, 2)}\n`);
}
