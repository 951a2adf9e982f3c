/**
 * Authentication for everything that shows users' content (`/examples`, `/api/*`, later `/review`):
 * `Authorization: Bearer <server.apiToken>` for programs, a sign-in form that sets an HttpOnly,
 * SameSite=Strict session cookie for people. Without a token the UI is served only on a loopback
 * address, unless `server.allowUnauthenticatedUi` says otherwise. `/metrics`, `/healthz` and
 * `/readyz` never pass through here.
 * @module
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie, setCookie } from 'hono/cookie';
import { escapeHtml } from './layout.ts';

/** Options of {@link uiAuth}. */
export interface UiAuthOptions {
  /** `server.apiToken`: required as a bearer token or session cookie when set. */
  apiToken?: string | undefined;
  /** Address the UI is bound to: without a token only loopback addresses serve it. */
  host: string;
  /** `server.allowUnauthenticatedUi`: serve the UI without a token on any address. Default false. */
  allowUnauthenticated?: boolean;
}

/** How the UI is protected, as decided at start (for the start-up log line). */
export type UiAccess = 'token' | 'open_loopback' | 'open_explicit' | 'refused';

const COOKIE = 'ragwatch_session';
const SESSION_MAX_AGE_S = 12 * 3600;

/** True for 127.0.0.0/8, ::1 and localhost. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === '::ffff:127.0.0.1';
}

/** The access mode the options give. */
export function uiAccess(options: UiAuthOptions): UiAccess {
  if (options.apiToken) return 'token';
  if (isLoopback(options.host)) return 'open_loopback';
  return options.allowUnauthenticated ? 'open_explicit' : 'refused';
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();
/** Session cookie value: an HMAC of a fixed label under the token (stateless; changes when the token does). */
const sessionValue = (token: string) => createHmac('sha256', token).update('ragwatch-ui-session-v1').digest('base64url');
const same = (a: string, b: Buffer) => timingSafeEqual(sha256(a), b);

/** A same-origin path to return to after signing in (never `//host` or a URL). */
function safeNext(next: string | undefined): string {
  return next && /^\/(?![/\\])[\x21-\x7e]*$/.test(next) ? next : '/';
}

const wantsHtml = (c: Context) => (c.req.header('accept') ?? '').includes('text/html');

/** The sign-in page (no scripts; the token is posted to `/login`). */
export function renderLoginPage(next: string, error?: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>ragwatch — sign in</title>
<style>body{font:15px/1.45 system-ui,sans-serif;margin:4rem auto;max-width:26rem;padding:0 1rem}input{font:inherit;width:100%;padding:.4rem;margin:.4rem 0}
button{font:inherit;padding:.4rem 1rem}.error{color:#b00}</style></head><body>
<h1>ragwatch</h1><p>This page shows your users' questions and answers. Sign in with the API token (<code>server.apiToken</code>).</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}<form method="post" action="/login">
<input type="hidden" name="next" value="${escapeHtml(next)}"><label>API token <input type="password" name="token" autocomplete="current-password" autofocus required></label>
<button type="submit">Sign in</button></form></body></html>`;
}

const PAGE_HEADERS = { 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'", 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' };

/**
 * Middleware for the UI routes plus the `/login` handler. A request passes with the bearer token or
 * the session cookie; otherwise programs get 401 JSON (with `WWW-Authenticate`), browsers the
 * sign-in form (401). With access `refused`, everything answers 403 with the key to set.
 */
export function uiAuth(options: UiAuthOptions): { guard: MiddlewareHandler; loginLimit: MiddlewareHandler; login: (c: Context) => Promise<Response> } {
  const access = uiAccess(options);
  const token = options.apiToken;
  const bearer = token ? sha256(`Bearer ${token}`) : undefined;
  const session = token ? sha256(sessionValue(token)) : undefined;
  const refusedMessage = `the UI and API show users' content and are not served on ${options.host} without a token: set server.apiToken (env RAGWATCH_API_TOKEN), or server.allowUnauthenticatedUi: true to serve them openly`;

  const guard: MiddlewareHandler = async (c, next) => {
    if (access === 'open_loopback' || access === 'open_explicit') return next();
    if (access === 'refused') return c.json({ error: 'forbidden', message: refusedMessage }, 403);
    const cookie = getCookie(c, COOKIE);
    if (same(c.req.header('authorization') ?? '', bearer!) || (cookie !== undefined && same(cookie, session!))) return next();
    if (c.req.method === 'GET' && wantsHtml(c)) return c.html(renderLoginPage(safeNext(c.req.path + (new URL(c.req.url).search || ''))), 401, PAGE_HEADERS);
    c.header('WWW-Authenticate', 'Bearer realm="ragwatch"');
    return c.json({ error: 'unauthorized', message: 'send Authorization: Bearer <server.apiToken>, or sign in at /login' }, 401);
  };

  const login = async (c: Context): Promise<Response> => {
    if (access === 'refused') return c.json({ error: 'forbidden', message: refusedMessage }, 403);
    if (c.req.method === 'GET') return c.html(renderLoginPage(safeNext(c.req.query('next'))), 200, PAGE_HEADERS);
    if (!token) return c.redirect(safeNext(c.req.query('next')), 303);
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const next = safeNext(typeof form.next === 'string' ? form.next : undefined);
    if (typeof form.token !== 'string' || !same(`Bearer ${form.token}`, bearer!)) return c.html(renderLoginPage(next, 'Wrong token.'), 401, PAGE_HEADERS);
    setCookie(c, COOKIE, sessionValue(token), { httpOnly: true, sameSite: 'Strict', path: '/', maxAge: SESSION_MAX_AGE_S, secure: new URL(c.req.url).protocol === 'https:' });
    return c.redirect(next, 303);
  };
  // A sign-in form is a few hundred bytes: nothing larger is read.
  const loginLimit = bodyLimit({ maxSize: 4096, onError: (c) => c.json({ error: 'payload_too_large', message: 'sign-in form over 4 KiB' }, 413) });
  return { guard, loginLimit, login };
}
