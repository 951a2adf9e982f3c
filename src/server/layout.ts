/**
 * What every UI page shares: the HTML shell, the base style, the nav bar (front door, examples,
 * review, calibration, weaknesses, probes, exams) and the response headers (a strict CSP: no script
 * unless the page brings one under a per-response nonce). Server-rendered, no external resources.
 * @module
 */
import { randomBytes } from 'node:crypto';

/** HTML-escapes text for element content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** A number to two decimals, `–` when absent or not finite. */
export const fmt2 = (v: number | null | undefined): string => (v === null || v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(2));

/** The page anchor of a probe suite (names are any UTF-8: percent-encoded, then escaped where written). */
export const suiteAnchor = (suite: string): string => `suite-${encodeURIComponent(suite)}`;

/** The pages in the nav bar, in order: path and label. */
export const NAV_PAGES: ReadonlyArray<readonly [path: string, label: string]> = [
  ['/', 'Overview'],
  ['/examples', 'Examples'],
  ['/review', 'Review'],
  ['/calibration', 'Calibration'],
  ['/weaknesses', 'Weaknesses'],
  ['/probes', 'Probes'],
  ['/exams', 'Exams'],
];

const BASE_STYLE = `body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1b1b1b}main{margin:1rem auto 2rem;max-width:76rem;padding:0 1rem}
nav.rw{background:#1f2933;padding:.45rem 1rem;display:flex;flex-wrap:wrap;gap:.2rem 1.1rem;align-items:baseline}nav.rw a{color:#d9e2ec;text-decoration:none;font-size:.9rem}
nav.rw a.brand{color:#fff;font-weight:700;margin-right:.6rem}nav.rw a[aria-current=page]{color:#fff;border-bottom:2px solid #7cc4fa}nav.rw a:hover{color:#fff}
h1{font-size:1.3rem}h2{font-size:1.08rem;margin-top:1.5rem}.meta{color:#555;font-size:.82rem}table{border-collapse:collapse}th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:right}
th[scope=row]{text-align:left;font-weight:normal}.bad{color:#a00;font-weight:bold}.ok{color:#265}.warn{color:#8a5a00}`;

/** Options of {@link renderPage}. */
export interface PageOptions {
  /** The `<title>` after "ragwatch ". */
  title: string;
  /** The page's path: marked current in the nav bar. */
  path: string;
  /** The page's content (already escaped where it holds data). */
  body: string;
  /** The page's own style, after the base style. */
  style?: string;
  /** An inline script, allowed by its nonce (see {@link pageHeaders}). */
  script?: { nonce: string; code: string };
  /** Reload every this many seconds (a `<meta http-equiv=refresh>`, no script). */
  refreshS?: number;
}

/** The nav bar. */
export function navBar(current: string): string {
  const links = NAV_PAGES.map(([path, label]) => `<a href="${path}"${path === current ? ' aria-current="page"' : ''}>${label}</a>`).join('');
  return `<nav class="rw" aria-label="ragwatch pages"><a class="brand" href="/">ragwatch</a>${links}</nav>`;
}

/** A whole page: shell, style, nav bar, content. */
export function renderPage(o: PageOptions): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">${o.refreshS ? `<meta http-equiv="refresh" content="${o.refreshS}">` : ''}
<title>ragwatch ${escapeHtml(o.title)}</title><style>${BASE_STYLE}${o.style ?? ''}</style></head>
<body>${navBar(o.path)}<main>
${o.body}
</main>${o.script ? `<script nonce="${o.script.nonce}">${o.script.code}</script>` : ''}</body></html>`;
}

/** A fresh nonce for one response's inline script. */
export const newNonce = (): string => randomBytes(16).toString('base64');

/** Response headers of a page: CSP (styles inline; a script only with `nonce`; images only with `images`), no sniffing, no caching. */
export function pageHeaders(options: { nonce?: string; images?: boolean } = {}): Record<string, string> {
  const csp = ["default-src 'none'", "style-src 'unsafe-inline'", "form-action 'self'"];
  if (options.nonce) csp.push(`script-src 'nonce-${options.nonce}'`, "connect-src 'self'");
  if (options.images) csp.push("img-src 'self' data:");
  return { 'Content-Security-Policy': csp.join('; '), 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' };
}

/**
 * A trace id, linked to the tracing backend when `server.traceUrlTemplate` is set (`{traceId}` replaced
 * by the URL-encoded id, the whole URL escaped as an attribute), else shown as code.
 */
export function traceRef(traceId: string, template: string | undefined): string {
  const code = `<code class="trace-id">${escapeHtml(traceId)}</code>`;
  if (!template) return code;
  return `<a class="trace-link" href="${escapeHtml(template.replaceAll('{traceId}', encodeURIComponent(traceId)))}" rel="noopener noreferrer">${code}</a>`;
}
