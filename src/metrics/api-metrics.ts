import type { NextFunction, Request, Response } from 'express';

import type { MetricsService } from './metrics.service';

/**
 * Counts every API answer by its route template (`/projects/:projectId`), never the
 * raw path: ids in labels would make one series per project. Requests that matched
 * no route count as `unmatched`.
 */
export function apiMetrics(metrics: MetricsService) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const start = process.hrtime.bigint();
    res.once('finish', () => {
      const route = req.route ? `${req.baseUrl}${(req.route as { path: string }).path}` : 'unmatched';
      metrics.observeApi(route, req.method, res.statusCode, Number(process.hrtime.bigint() - start) / 1e9);
    });
    next();
  };
}
