import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

import type { NextFunction, Request, Response } from 'express';

import { ASSET_CACHE, DASHBOARD_HEADERS, dashboardTarget, INDEX_CACHE } from './dashboard-http';

/** The checkout (or image) root: the nearest folder above this file with a package.json (src/ in tests, dist/src/ when built). */
function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return from;
  }
}

/** Where `vite build` writes the dashboard (web/vite.config.mts). */
export const DASHBOARD_DIST = join(packageRoot(__dirname), 'dist', 'web');

function notBuilt(res: Response): void {
  res.status(503).json({
    statusCode: 503,
    error: 'Service Unavailable',
    message: 'The dashboard is not built: run `npm run build` (npm start builds it when its sources change)',
    code: 'dashboard_not_built',
  });
}

/**
 * Serves the dashboard on the API host: `/app/assets/*` (hashed, immutable), index.html
 * for every other `/app/*` path, and a redirect to it for a browser asking for `/`.
 * Site hosts never get here: the site router answers them before Express.
 */
export function dashboardMiddleware(dir = DASHBOARD_DIST) {
  const index = join(dir, 'index.html');
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const target = dashboardTarget(req.path, req.headers.accept);
    switch (target.kind) {
      case 'none':
        return next();
      case 'redirect':
        res.setHeader('Cache-Control', 'no-cache');
        res.redirect(302, target.location);
        return;
      case 'asset':
      case 'index': {
        res.set(DASHBOARD_HEADERS);
        const file = target.kind === 'asset' ? join(dir, 'assets', target.file) : index;
        if (target.kind === 'asset' && (!target.file || !existsSync(file))) {
          // A stale index.html asking for an asset of an older build must not get HTML back.
          res.status(404).type('text/plain').setHeader('Cache-Control', 'no-cache');
          res.end('Not found');
          return;
        }
        if (!existsSync(index)) return notBuilt(res);
        res.sendFile(
          file,
          { headers: { 'Cache-Control': target.kind === 'asset' ? ASSET_CACHE : INDEX_CACHE }, cacheControl: false, dotfiles: 'deny' },
          (err) => {
            if (err && !res.headersSent) next(err);
          },
        );
        return;
      }
    }
  };
}
