/**
 * Starts a hono app on a Node HTTP server and resolves once it listens.
 * @module
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';

/** A listening server. */
export interface RunningServer {
  /** The bound port (useful with port 0). */
  port: number;
  host: string;
  /** Stops accepting connections and closes idle ones. Idempotent. */
  close(): Promise<void>;
}

/** Listens on `host:port`; rejects on EADDRINUSE and other listen errors. */
export function listen(app: Hono, host: string, port: number): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port });
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      let closing: Promise<void> | undefined;
      const addr = server.address() as AddressInfo;
      resolve({
        port: addr.port,
        host,
        close: () =>
          (closing ??= new Promise<void>((done) => {
            server.close(() => done());
            if ('closeIdleConnections' in server) server.closeIdleConnections();
          })),
      });
    });
  });
}
