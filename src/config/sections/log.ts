import { z } from 'zod';

/** Logging (pino on stderr). */
export const logSection = z
  .object({
    level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** `json` (one JSON object per line), `pretty` (coloured, readable), or `auto`: pretty when stderr is a terminal, else JSON. Default `auto`. */
    format: z.enum(['auto', 'json', 'pretty']).default('auto'),
  })
  .strict();
