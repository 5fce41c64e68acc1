import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { Paginated, paginated } from '../common/pagination';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { ProjectsService } from '../projects/projects.service';
import { rememberAliasChange } from '../projects/site-events';
import { type AliasSource, hashedPreviewAlias, previewAlias } from '../shared/preview-alias';
import type { Principal } from '../shared/principal';
import type { PreviewView } from './dto/preview-views.dto';
import { previewView } from './preview.view';
import type { AliasKind } from './preview-alias.entity';
import { PreviewsRepository } from './previews.repository';

/** A ready build's deployment, to serve at its branch's or pull request's alias. */
export interface PointAlias {
  projectId: string;
  /** The project's slug now: the label is made from it. */
  slug: string;
  source: AliasSource;
  deploymentId: string;
  buildId: string | null;
  commitSha: string | null;
  /** The branch built (a pull request's head branch). */
  branch: string | null;
  /**
   * Whether this build is newer than the one the alias serves now (`servedBuildId`): builds
   * of one branch can finish out of order, and only the builds module knows their order.
   * Absent: the alias always moves.
   */
  supersedes?: (manager: EntityManager, servedBuildId: string) => Promise<boolean>;
}

const keyOf = (source: AliasSource): { kind: AliasKind; name: string } =>
  source.kind === 'branch' ? { kind: 'branch', name: source.branch } : { kind: 'pull_request', name: String(source.number) };

/**
 * The stable preview addresses of branches and pull requests (issue 29, docs/previews.md):
 * which deployment each serves, moved by ready builds, removed when the branch is deleted
 * or the pull request closed. Every change tells the site caches of every instance and the
 * purge webhook, as deploys do.
 */
@Injectable()
export class PreviewsService {
  constructor(
    private readonly aliases: PreviewsRepository,
    private readonly projects: ProjectsService,
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  /** `<scheme>://<label>.<SITES_DOMAIN>`, as a project's own address is written. */
  url(label: string): string {
    return this.config.siteUrl(label);
  }

  /**
   * Moves the source's alias to `deploymentId`, inside `manager`'s transaction (the deploy's,
   * so the alias moves exactly when the deployment exists). Returns the label, or null when
   * a newer build already moved the alias (it stays where it is).
   */
  async point(manager: EntityManager, p: PointAlias): Promise<string | null> {
    const { kind, name } = keyOf(p.source);
    const current = await this.aliases.lock(manager, p.projectId, kind, name);
    if (current?.buildId && current.buildId !== p.buildId && p.supersedes && !(await p.supersedes(manager, current.buildId))) return null;
    let label = previewAlias(p.source, p.slug);
    const holder = await this.aliases.labelHolder(manager, label);
    // Only a renamed slug lets another alias hold this short form (docs/previews.md): the
    // one already there keeps it, this one takes the hashed form, which cannot collide.
    if (holder && !(holder.projectId === p.projectId && holder.kind === kind && holder.name === name)) label = hashedPreviewAlias(p.source, p.slug);
    await this.aliases.upsert(
      manager,
      { projectId: p.projectId, kind, name, label, deploymentId: p.deploymentId, buildId: p.buildId, commitSha: p.commitSha, branch: p.branch },
      this.clock.now(),
    );
    await this.projects.notifySiteChanged(manager, p.projectId);
    rememberAliasChange(manager, p.projectId, label);
    if (current && current.label !== label) rememberAliasChange(manager, p.projectId, current.label);
    return label;
  }

  /**
   * Removes a branch's (deleted) or a pull request's (closed, merged) alias: its host stops
   * answering at once; its deployments expire by their TTL. The removed label, or null when
   * there was no alias. `beforeRemove` runs first in the same transaction (the hooks cancel
   * the source's running builds there, so none recreates the alias by finishing later).
   */
  removeAlias(projectId: string, source: AliasSource, beforeRemove?: (manager: EntityManager) => Promise<unknown>): Promise<string | null> {
    const { kind, name } = keyOf(source);
    return this.dataSource.transaction(async (m) => {
      // First, before the alias row: the builds' rows are locked in the order a deploy
      // locks them (build, then alias), so the two never deadlock; a build whose deploy
      // committed first has its alias deleted just below.
      if (beforeRemove) await beforeRemove(m);
      const label = await this.aliases.delete(m, projectId, kind, name);
      if (label === null) return null;
      await this.projects.notifySiteChanged(m, projectId);
      rememberAliasChange(m, projectId, label);
      return label;
    });
  }

  async list(principal: Principal, projectId: string, page: number, limit: number): Promise<Paginated<PreviewView>> {
    const project = await this.projects.findVisible(principal, projectId);
    const { entities, total } = await this.aliases.page(project.id, page, limit);
    return paginated(
      entities.map((a) => previewView(a, this.url(a.label))),
      total,
      page,
      limit,
    );
  }
}
