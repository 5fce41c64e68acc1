import { iso } from '../common/time';
import type { Build } from './build.entity';
import type { BuildView } from './dto/build-views.dto';

/** A build as every route answers with it. */
export function buildView(b: Build): BuildView {
  return {
    id: b.id,
    projectId: b.projectId,
    status: b.status,
    trigger: b.trigger,
    ref: b.ref,
    branch: b.branch,
    commitSha: b.commitSha,
    commitMessage: b.commitMessage,
    pullRequest: b.pullRequest,
    fork: b.fork,
    deploymentId: b.deploymentId,
    url: b.url,
    detected: b.detected,
    createdAt: iso(b.createdAt),
    startedAt: iso(b.startedAt),
    finishedAt: iso(b.finishedAt),
    durationMs: b.durationMs,
    error: b.error,
    forgeStatus: b.forgeStatus,
    forgeError: b.forgeError,
  };
}
