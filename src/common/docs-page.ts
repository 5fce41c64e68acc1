import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import type { NextFunction, Request, Response } from 'express';

/** The paths at which @nestjs/swagger serves Swagger UI's HTML page under `prefix` (SwaggerModule.serveSwaggerUi). */
export function docsPagePaths(prefix: string): ReadonlySet<string> {
  return new Set([prefix, `${prefix}/`, `${prefix}/index.html`]);
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** The Swagger UI scripts @nestjs/swagger serves (from the swagger-ui-dist it depends on). */
const SWAGGER_UI_SCRIPTS = ['swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js'];

/**
 * The `<style>` elements Swagger UI's scripts create (the top bar's SVG logo carries
 * one): the text of each `createElement("style", …, "<css>")` in the files served.
 */
export function scriptStyleElements(script: string): string[] {
  return [...script.matchAll(/createElement\("style",(?:null|\{[^{}]*\}),("(?:[^"\\]|\\.)*")\)/g)].map((m) => JSON.parse(m[1]) as string);
}

let swaggerUiStyles: string[] | undefined;

/** scriptStyleElements of the Swagger UI files this install serves, read once. */
function swaggerUiScriptStyles(): string[] {
  if (!swaggerUiStyles) {
    const dir = (createRequire(require.resolve('@nestjs/swagger'))('swagger-ui-dist/absolute-path.js') as () => string)();
    swaggerUiStyles = SWAGGER_UI_SCRIPTS.flatMap((file) => scriptStyleElements(readFileSync(join(dir, file), 'utf8')));
  }
  return swaggerUiStyles;
}

/**
 * The Content-Security-Policy for one Swagger UI page. Its scripts are files
 * (swagger-ui-bundle.js, the init script with the document); what it inlines is two
 * `<style>` blocks and a `style` attribute on its SVG sprite, and its scripts add a
 * `<style>` element of their own (`scriptStyles`): all allowed by their hashes (the
 * attribute through 'unsafe-hashes', which admits exactly that value). Swagger UI's
 * other inline styles are set through the CSSOM, which CSP does not govern; its
 * icons are data: images. "Try it out" calls the API: this origin, or `apiOrigin`
 * when the document names another host of the API.
 */
export function docsPageCsp(html: string, scriptStyles: readonly string[], apiOrigin?: string): string {
  const inline = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)].map((m) => m[1]);
  const blocks = [...inline, ...scriptStyles].map(sha256);
  const attributes = [...html.matchAll(/\sstyle="([^"]*)"/gi)].map((m) => sha256(m[1]));
  const styles = [...new Set(blocks), ...(attributes.length > 0 ? ["'unsafe-hashes'", ...new Set(attributes)] : [])];
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' ${styles.join(' ')}`.trim(),
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self'${apiOrigin ? ` ${apiOrigin}` : ''}`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Gives Swagger UI's page (and only it: its scripts and styles need none) the
 * headers of the service's other HTML pages: a CSP computed from the HTML it sends
 * (once per distinct page: @nestjs/swagger builds each once), no framing, no referrer.
 */
export function docsPageHeaders(prefix: string, apiOrigin?: string) {
  const paths = docsPagePaths(prefix);
  const policies = new Map<string, string>();
  return (req: Request, res: Response, next: NextFunction): void => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !paths.has(req.path)) return next();
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      if (typeof body === 'string') {
        let policy = policies.get(body);
        if (policy === undefined) {
          policy = docsPageCsp(body, swaggerUiScriptStyles(), apiOrigin);
          if (policies.size < 8) policies.set(body, policy);
        }
        res.setHeader('Content-Security-Policy', policy);
      }
      return send(body);
    };
    next();
  };
}
