import { z } from 'zod';

/** Logging (pino, JSON lines on stderr). */
export const logSection = z
  .object({
    level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .strict();
