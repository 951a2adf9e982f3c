import { defineConfig } from 'vitest/config';

/**
 * The fault suite (`npm run test:faults`, also run by CI): slow, resource-heavy cases that print
 * their figures as JSON lines. One file at a time: the burst case needs the machine to itself.
 */
export default defineConfig({
  test: {
    include: ['tests/faults/**/*.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
    reporters: ['default'],
  },
});
