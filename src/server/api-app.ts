/**
 * Metrics and API port: `/metrics`, `/healthz` (process alive), `/readyz` (judge loaded, transport delivering).
 * @module
 */
import { Hono } from 'hono';
import type { Registry } from 'prom-client';

/** Options of {@link createApiApp}. */
export interface ApiAppOptions {
  registry: Registry;
  /** Readiness probe: true when the judge is loaded and the transport is delivering. */
  ready: () => boolean;
}

export function createApiApp(options: ApiAppOptions): Hono {
  const app = new Hono();
  app.get('/metrics', async (c) => {
    const body = await options.registry.metrics();
    return c.body(body, 200, { 'Content-Type': options.registry.contentType });
  });
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) => (options.ready() ? c.json({ status: 'ready' }) : c.json({ status: 'starting' }, 503)));
  return app;
}
