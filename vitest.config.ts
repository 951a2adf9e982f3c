import { defineConfig } from 'vitest/config';

/**
 * Two layers of tests (docs/testing.md):
 * - `unit` (`npm test`): everything that needs no process beyond Node — pure code, in-process servers,
 *   spawned `ragwatch`/`npm` processes (Node itself). Minutes on 2 cores.
 * - `integration` (`npm run test:integration`): the real external parts — the Kafka mock cluster
 *   (`kcat`), Prometheus/promtool/Alertmanager, headless Chromium, helm. A file belongs here when it
 *   lives under `tests/integration/` or ends in `.integration.test.ts`
 *   (`tests/architecture/test-layers.test.ts` checks that every file using one of those binaries does).
 * `npm run test:all` runs both; `.ci/run` runs both.
 */
export const INTEGRATION = ['tests/integration/**/*.test.ts', 'tests/**/*.integration.test.ts'];
const EXCLUDE = ['tests/faults/**', 'node_modules/**'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker per core but one (2 cores → 1). Most files wait on sockets,
    // timers or child processes rather than compute, so two workers share two cores well.
    maxWorkers: 2,
    reporters: ['default'],
    // Hermetic judge choice: a model in the developer's cache must not turn a test's default
    // (embedded) judge into the local one. Tests of the local judge give their own cache.
    env: { RAGWATCH_MODEL_CACHE: '/nonexistent/ragwatch-test-model-cache' },
    projects: [
      { extends: true, test: { name: 'unit', include: ['tests/**/*.test.ts'], exclude: [...EXCLUDE, ...INTEGRATION] } },
      { extends: true, test: { name: 'integration', include: INTEGRATION, exclude: EXCLUDE } },
    ],
  },
});
