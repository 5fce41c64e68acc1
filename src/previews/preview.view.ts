import { iso } from '../common/time';
import type { PreviewView } from './dto/preview-views.dto';
import type { PreviewAlias } from './preview-alias.entity';

/** An alias as GET /projects/:projectId/previews shows it; `url` is where its label is served. */
export function previewView(a: PreviewAlias, url: string): PreviewView {
  return {
    alias: a.label,
    kind: a.kind,
    branch: a.branch,
    pullRequest: a.kind === 'pull_request' ? Number(a.name) : null,
    url,
    deploymentId: a.deploymentId,
    buildId: a.buildId,
    commitSha: a.commitSha,
    createdAt: iso(a.createdAt),
    updatedAt: iso(a.updatedAt),
  };
}
