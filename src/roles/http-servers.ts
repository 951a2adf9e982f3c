/**
 * The metrics/API servers of a role: `/metrics`, `/healthz`, `/readyz` on `server.httpPort`, and the
 * authenticated UI (`/examples`, `/api/*`, `/login`) on the same port or on `server.uiPort`.
 * @module
 */
import type { Registry } from 'prom-client';
import type { RagwatchConfig } from '../config/schema.ts';
import type { Logger } from '../log.ts';
import { createApiApp, createMetricsApp, createUiApp, type ApiAppOptions, type UiSources } from '../server/api-app.ts';
import { listen, type RunningServer } from './serve.ts';
import { uiAccess, type UiAuthOptions } from '../server/ui-auth.ts';
import type { ProbeRuns } from '../probes/run-view.ts';

/** What {@link startHttpServers} serves. */
export interface HttpServersOptions {
  registry: Registry;
  ready: () => boolean;
  quality: UiSources;
  summary: () => Record<string, unknown>;
  /** The scheduled prober's runs, when this process probes. */
  probes?: ProbeRuns | undefined;
  /** The trail and judged answers (`/answers/<traceId>`). */
  answers?: ApiAppOptions['answers'];
}

/** The running servers; `ui` is the metrics server itself unless `server.uiPort` is set. */
export interface HttpServers {
  http: RunningServer;
  ui: RunningServer;
  /** Closes both. Idempotent. */
  close(): Promise<void>;
}

/** Starts the metrics server and the UI (own port when `server.uiPort` is set), and logs how the UI is protected. */
export async function startHttpServers(server: RagwatchConfig['server'], options: HttpServersOptions, logger: Logger): Promise<HttpServers> {
  const auth: UiAuthOptions = { apiToken: server.apiToken, host: server.host, allowUnauthenticated: server.allowUnauthenticatedUi };
  const access = uiAccess(auth);
  const separate = server.uiPort !== undefined;
  const http = await listen(separate ? createMetricsApp(options) : createApiApp({ ...options, auth }), server.host, server.httpPort);
  let ui = http;
  if (separate) {
    try {
      ui = await listen(createUiApp({ ...options, auth }), server.host, server.uiPort!);
    } catch (err) {
      await http.close();
      throw err;
    }
  }
  const where = `http://${server.host}:${ui.port}/`;
  if (access === 'refused') logger.warn({ ui: where }, 'UI and /api/* refused (403): they show users\' content and server.host is not loopback; set server.apiToken (RAGWATCH_API_TOKEN) or server.allowUnauthenticatedUi: true');
  else if (access === 'open_explicit') logger.warn({ ui: where }, 'UI and /api/* served WITHOUT authentication on a non-loopback address (server.allowUnauthenticatedUi: true)');
  else logger.info({ ui: where, auth: access === 'token' ? 'bearer token or sign-in' : 'none (loopback only)' }, 'UI ready');
  return { http, ui, close: async () => void (await Promise.all([http.close(), ui.close()])) };
}
