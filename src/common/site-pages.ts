/**
 * Built-in HTML pages answered on site hosts, by the site router (404, 405, errors) and
 * by the gates (their forms): self-contained (no external resources), no JavaScript.
 * Here, below both, so neither sites/ nor gates/ imports the other for them.
 */
import { createHash } from 'node:crypto';

export const GATE_PATH = '/.statichost/gate';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const STYLE = `
:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
body{margin:0;min-height:100vh;display:grid;place-items:center;background:Canvas;color:CanvasText}
main{box-sizing:border-box;width:min(24rem,90vw);padding:2rem;border:1px solid color-mix(in srgb,CanvasText 20%,transparent);border-radius:.75rem}
h1{font-size:1.25rem;margin:0 0 .5rem}p{margin:.25rem 0 1rem;line-height:1.5}
label{display:block;font-weight:600;margin-bottom:.25rem}
input{box-sizing:border-box;width:100%;padding:.6rem;font-size:1rem;border:1px solid GrayText;border-radius:.4rem}
button{margin-top:1rem;width:100%;padding:.6rem;font-size:1rem;border:0;border-radius:.4rem;background:#2251d1;color:#fff;cursor:pointer}
button:focus-visible,input:focus-visible{outline:3px solid #f0a400;outline-offset:2px}
.error{color:#b00020;font-weight:600}`;

/**
 * The Content-Security-Policy of these pages: nothing but their one inline style
 * (allowed by its hash, computed once here: the pages are templates around a fixed
 * stylesheet, so no per-request nonce is needed), the site's own favicon, and the
 * gate form posting to its own origin. Never sent with a site's own files: those
 * get what their `_headers` say.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  // Browsers fetch /favicon.ico for any page; on a site it is the site's own.
  "img-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Headers of every built-in page (gate, 404, errors), as the dashboard sends its own
 * (src/dashboard/dashboard-http.ts): no framing (the password form cannot be
 * clickjacked), no referrer (a gate's `next` path stays on the site). Unlike the
 * dashboard, no Cross-Origin-Opener-Policy: these pages stand on the site's origin,
 * and a gate page with one would cut `window.opener` of a site page opened as a
 * popup once the visitor unlocks it.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': PAGE_CSP,
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

/** PAGE_HEADERS as a flat [name, value, …] list, the form writeHead takes. */
export const PAGE_HEADER_LIST: readonly string[] = Object.entries(PAGE_HEADERS).flat();

/** A built-in page around `body` (its stylesheet is the one PAGE_CSP allows). */
export function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

export interface GatePageOptions {
  kind: 'password' | 'email';
  siteName: string;
  next: string;
  error?: string;
  /** Email gate: what the visitor typed, shown again with the error. */
  value?: string;
}

export function gatePage(o: GatePageOptions): string {
  const isPassword = o.kind === 'password';
  const title = isPassword ? 'Password required' : 'Enter your email to continue';
  const intro = isPassword
    ? `<p>${escapeHtml(o.siteName)} is protected. Enter the password to continue.</p>`
    : `<p>Enter your email address to see ${escapeHtml(o.siteName)}.</p>`;
  const error = o.error ? `<p class="error" id="gate-error" role="alert">${escapeHtml(o.error)}</p>` : '';
  const described = o.error ? ' aria-describedby="gate-error" aria-invalid="true"' : '';
  const input = isPassword
    ? `<label for="gate-password">Password</label>
<input id="gate-password" name="password" type="password" autocomplete="current-password" required autofocus${described}>`
    : `<label for="gate-email">Email address</label>
<input id="gate-email" name="email" type="email" autocomplete="email" maxlength="254" required autofocus value="${escapeHtml(o.value ?? '')}"${described}>`;
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1>${intro}${error}
<form method="post" action="${GATE_PATH}">
<input type="hidden" name="next" value="${escapeHtml(o.next)}">
${input}
<button type="submit">Continue</button>
</form>`,
  );
}

export function messagePage(title: string, message: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}

export const PAGES = {
  unknownSite: () => messagePage('Site not found', 'There is no site at this address.'),
  notFound: () => messagePage('Page not found', 'This site has no page at this address.'),
  nothingPublished: () => messagePage('Nothing published yet', 'This site exists but has no live deployment.'),
  expired: () => messagePage('Site expired', 'The deployment of this site has expired.'),
  methodNotAllowed: () => messagePage('Method not allowed', 'Sites answer GET and HEAD requests only.'),
  tooManyAttempts: (seconds: number) => messagePage('Too many attempts', `Too many attempts from your address. Try again in ${seconds} seconds.`),
  busy: () => messagePage('Busy', 'The server is busy. Try again in a moment.'),
  rangeNotSatisfiable: () => messagePage('Range not satisfiable', 'The requested byte range is outside the file.'),
  notAcceptable: () => messagePage('Not acceptable', 'This file is not available in any content coding the request accepts (Accept-Encoding).'),
  /** Issue 31: the workspace's spend cap paused its sites. */
  pausedByUsageLimit: () =>
    messagePage(
      'Site paused',
      "This site is paused by its owner's usage limit: it has served this month's bandwidth. It comes back next month, or sooner if its owner raises the limit.",
    ),
};
