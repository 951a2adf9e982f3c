/**
 * Authentication of the UI routes (`/examples`, `/api/*`): token, sign-in cookie, loopback-only
 * without a token, explicit opt-out, and the UI on a port of its own. `/metrics`, `/healthz`,
 * `/readyz` stay open in every mode.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import { createApiApp } from '../../src/server/api-app.ts';
import { startHttpServers, type HttpServers } from '../../src/roles/http-servers.ts';
import { isLoopback, type UiAuthOptions } from '../../src/server/ui-auth.ts';

const TOKEN = 'a-very-secret-ui-token-123';

function app(auth?: UiAuthOptions) {
  const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false } } });
  const instruments = createInstruments(instrumentsOptionsFromConfig(config));
  const quality = new QualityMonitor({ config, instruments });
  return createApiApp({ registry: instruments.registry, ready: () => true, quality, ...(auth ? { auth } : {}) });
}
const get = (a: ReturnType<typeof app>, path: string, headers: Record<string, string> = {}) => a.request(`http://ragwatch.test${path}`, { headers });

describe('UI authentication', () => {
  it('open probe routes in every mode', async () => {
    for (const auth of [{ host: '0.0.0.0' }, { host: '0.0.0.0', apiToken: TOKEN }]) {
      const a = app(auth);
      for (const path of ['/metrics', '/healthz', '/readyz']) expect((await get(a, path)).status, path).toBe(200);
    }
  });

  it('without a token: served on loopback, refused (403, naming the key) on any other address unless explicitly allowed', async () => {
    expect((await get(app({ host: '127.0.0.1' }), '/api/examples')).status).toBe(200);
    const refused = await get(app({ host: '0.0.0.0' }), '/api/examples');
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message).toMatch(/server\.apiToken.*RAGWATCH_API_TOKEN/);
    expect((await get(app({ host: '0.0.0.0' }), '/examples')).status).toBe(403);
    expect((await get(app({ host: '0.0.0.0', allowUnauthenticated: true }), '/api/status')).status).toBe(200);
    expect([isLoopback('127.0.0.1'), isLoopback('127.3.2.1'), isLoopback('::1'), isLoopback('localhost'), isLoopback('0.0.0.0'), isLoopback('10.0.0.1')]).toEqual([true, true, true, true, false, false]);
  });

  it('with a token: 401 with a reason and WWW-Authenticate without it or with a wrong one; 200 with it', async () => {
    const a = app({ host: '0.0.0.0', apiToken: TOKEN });
    // Every page (the front door and the probes page too) and every API that shows users' content.
    for (const path of ['/api/examples', '/api/status', '/examples', '/', '/probes', '/api/probes', '/weaknesses', '/exams', '/api/exams', '/calibration', '/api/calibration']) {
      const res = await get(a, path);
      expect(res.status, path).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="ragwatch"');
      expect(((await res.json()) as { message: string }).message).toMatch(/Authorization: Bearer/);
      expect((await get(a, path, { authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
      expect((await get(a, path, { authorization: `Bearer ${TOKEN}` })).status, path).toBe(200);
    }
  });

  it('a browser gets the sign-in form; the right token sets an HttpOnly SameSite=Strict cookie that opens the pages', async () => {
    const a = app({ host: '127.0.0.1', apiToken: TOKEN });
    const page = await get(a, '/examples?metric=groundedness', { accept: 'text/html' });
    expect(page.status).toBe(401);
    const html = await page.text();
    expect(html).toContain('<form method="post" action="/login">');
    expect(html).toContain('value="/examples?metric=groundedness"');
    const post = (body: string) => a.request('http://ragwatch.test/login', { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect((await post('token=wrong&next=%2Fexamples')).status).toBe(401);
    const ok = await post(`token=${TOKEN}&next=${encodeURIComponent('/examples?metric=groundedness')}`);
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/examples?metric=groundedness');
    const cookie = ok.headers.get('set-cookie')!;
    expect(cookie).toMatch(/ragwatch_session=[A-Za-z0-9_-]{20,}/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toContain(TOKEN);
    expect((await get(a, '/examples', { cookie: cookie.split(';')[0]! })).status).toBe(200);
    expect((await get(a, '/api/examples', { cookie: 'ragwatch_session=forged' })).status).toBe(401);
    // An open redirect is refused: next must be a path on this server.
    const evil = await post(`token=${TOKEN}&next=${encodeURIComponent('//evil.example/x')}`);
    expect(evil.headers.get('location')).toBe('/');
    // A sign-in body over 4 KiB is not read.
    expect((await post(`token=${'x'.repeat(5000)}`)).status).toBe(413);
  });
});

describe('server.uiPort', () => {
  let servers: HttpServers | undefined;
  afterEach(async () => servers?.close());

  it('puts the UI on its own port: the metrics port serves only /metrics, /healthz, /readyz', async () => {
    const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, server: { httpPort: 0, uiPort: 0, apiToken: TOKEN } } });
    const instruments = createInstruments(instrumentsOptionsFromConfig(config));
    const quality = new QualityMonitor({ config, instruments });
    servers = await startHttpServers(config.server, { registry: instruments.registry, ready: () => true, quality, summary: () => ({}) }, silentLogger);
    expect(servers.ui.port).not.toBe(servers.http.port);
    const at = (port: number, path: string) => fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect((await at(servers.http.port, '/metrics')).status).toBe(200);
    expect((await at(servers.http.port, '/api/examples')).status).toBe(404);
    expect((await at(servers.http.port, '/examples')).status).toBe(404);
    expect((await at(servers.ui.port, '/api/examples')).status).toBe(200);
    expect((await at(servers.ui.port, '/metrics')).status).toBe(404);
  });
});
