import { iso } from '../common/time';
import type { AppConfig } from '../config/app-config';
import type { Project } from '../projects/project.entity';
import { previewLabel } from '../shared/preview-label';
import { type Deployment, type DeploymentStatus } from './deployment.entity';
import { type DeploymentFile } from './deployment-file.entity';

/** A deployment's own address, `<preview label>.<SITES_DOMAIN>` (src/shared/preview-label.ts). */
export function previewUrl(config: AppConfig, project: Pick<Project, 'slug'>, d: Pick<Deployment, 'id' | 'version'>): string {
  return config.siteUrl(previewLabel(project.slug, d.version, d.id));
}

/** A deployment past its expiry is expired even before the sweeper has marked it. */
export function effectiveStatus(d: Pick<Deployment, 'status' | 'expiresAt'>, now: Date): DeploymentStatus {
  return d.status !== 'expired' && d.expiresAt !== null && d.expiresAt.getTime() <= now.getTime() ? 'expired' : d.status;
}

/** A deployment of `project` as the project routes answer with it: the site's address, its own preview address, its status as of `now`. */
export function projectDeploymentView(config: AppConfig, project: Pick<Project, 'slug'>, d: Deployment, now: Date) {
  return deploymentView(d, config.siteUrl(project.slug), previewUrl(config, project, d), now);
}

/** The lazy-deploy response: exactly the spec's fields. */
export function lazyDeployView(d: Deployment, url: string) {
  return { id: d.id, url, version: d.version, size_bytes: d.sizeBytes, expires_at: iso(d.expiresAt) };
}

/** `url`: the project's site address; `previewUrl`: this deployment's own (deploymentUrls). */
export function deploymentView(d: Deployment, url: string, previewUrl: string, now: Date) {
  return {
    id: d.id,
    projectId: d.projectId,
    version: d.version,
    status: effectiveStatus(d, now),
    url,
    previewUrl,
    size_bytes: d.sizeBytes,
    fileCount: d.fileCount,
    ttl: d.ttl,
    expires_at: iso(d.expiresAt),
    createdAt: iso(d.createdAt),
    createdBy: d.createdBy,
    // Copied field by field: the stored JSON is the record's, not the wire's.
    warnings: d.ruleWarnings.map(({ file, line, message }) => ({ file, line, message })),
  };
}

export type DeploymentView = ReturnType<typeof deploymentView>;

export function deploymentDetailView(view: ReturnType<typeof deploymentView>, files: DeploymentFile[]) {
  return {
    ...view,
    files: files.map((f) => ({ path: f.path, size: f.size, contentType: f.contentType, sha256: f.sha256 })),
  };
}

/** A deployment as the audit log names it: `<project slug> v<version>`, what the dashboard shows. */
export function deploymentTarget(project: Pick<Project, 'slug'>, d: Pick<Deployment, 'id' | 'version'>) {
  return { type: 'deployment', id: d.id, label: `${project.slug} v${d.version}` };
}
