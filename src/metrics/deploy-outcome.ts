import { HttpException } from '@nestjs/common';

import type { DeployOutcome } from './metrics.service';

/**
 * How a deploy that threw is counted: a 4xx answer (quota 402, invalid files or
 * `_redirects` 400, 409, 413, …) is the caller's request refused, not the service failing,
 * so an alert on `outcome="failed"` does not fire on every quota hit.
 */
export function deployOutcomeOf(err: unknown): Exclude<DeployOutcome, 'ok'> {
  return err instanceof HttpException && err.getStatus() >= 400 && err.getStatus() < 500 ? 'refused' : 'failed';
}
