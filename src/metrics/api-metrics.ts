import type { Request } from 'express';

import type { RequestObserver } from '../common/logging';
import type { MetricsService } from './metrics.service';

/**
 * Counts every API answer by its route template (`/projects/:projectId`), never the
 * raw path: ids in labels would make one series per project. Requests that matched
 * no route count as `unmatched`. Called by the request logger when a request ends.
 */
export function apiMetrics(metrics: MetricsService): RequestObserver {
  return (incoming, res, seconds) => {
    const req = incoming as Request;
    const route = req.route ? `${req.baseUrl}${(req.route as { path: string }).path}` : 'unmatched';
    metrics.observeApi(route, req.method, res.statusCode, seconds);
  };
}
