import { iso } from '../common/time';
import { AppConfig } from '../config/app-config';
import { Project } from './project.entity';

/** The create response: exactly the spec's fields. */
export function projectCreatedView(p: Project) {
  return {
    id: p.id,
    name: p.name,
    slug: p.slug,
    type: p.type,
    default_ttl: p.defaultTtl,
    workspaceId: p.workspaceId,
    createdAt: iso(p.createdAt),
  };
}

/** Get and list: the create fields plus state; never the password or its hash. */
export function projectView(p: Project, config: AppConfig) {
  return {
    ...projectCreatedView(p),
    gate_type: p.gateType,
    custom_domain: p.customDomain,
    liveDeploymentId: p.liveDeploymentId,
    url: config.siteUrl(p.slug),
    updatedAt: iso(p.updatedAt),
  };
}

export type ProjectView = ReturnType<typeof projectView>;
