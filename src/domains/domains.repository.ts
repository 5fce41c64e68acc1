import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';
import { Project } from '../projects/project.entity';

/** What a conclusive check writes (src/shared/custom-domain/domain-check.ts, nextDomainState). */
export type DomainStateColumns = Pick<Project, 'domainStatus' | 'domainVerifiedAt' | 'domainCheckedAt' | 'domainFailingSince'>;

/**
 * Every query of the custom-domain checks. A custom domain lives on its project's row
 * (attaching one is a project update, in the projects module); these are the reads and
 * writes of its verification state, which only this module changes.
 */
@Injectable()
export class DomainsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The project under a row lock, for writing a check's outcome; null when it was deleted. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.projectId] })
  lockProject(manager: EntityManager, projectId: string): Promise<Project | null> {
    return manager.getRepository(Project).findOne({ where: { id: projectId }, lock: { mode: 'pessimistic_write' } });
  }

  @GenerateSql({ params: (f) => [f.manager, f.projectId] })
  getProject(manager: EntityManager, projectId: string): Promise<Project> {
    return manager.getRepository(Project).findOneByOrFail({ id: projectId });
  }

  /** An unanswered check: only when it was tried changes. */
  @GenerateSql({ params: (f) => [f.manager, 'prj_none', new Date(0)] })
  async markChecked(manager: EntityManager, projectId: string, at: Date): Promise<void> {
    await manager.getRepository(Project).update({ id: projectId }, { domainCheckedAt: at });
  }

  @GenerateSql({
    params: (f) => [f.manager, 'prj_none', { domainStatus: 'verified', domainVerifiedAt: new Date(0), domainCheckedAt: new Date(0), domainFailingSince: null }],
  })
  async writeState(manager: EntityManager, projectId: string, state: DomainStateColumns): Promise<void> {
    await manager.getRepository(Project).update({ id: projectId }, state);
  }

  /** Verified domains last checked at or before `before`, the longest waiting first. */
  @GenerateSql({ params: () => [new Date(0), 200] })
  dueForRecheck(before: Date, limit: number): Promise<Project[]> {
    return this.dataSource
      .getRepository(Project)
      .createQueryBuilder('p')
      .where(`p.domain_status = 'verified'`)
      .andWhere('(p.domain_checked_at IS NULL OR p.domain_checked_at <= :before)', { before })
      .orderBy('p.domain_checked_at', 'ASC', 'NULLS FIRST')
      .limit(limit)
      .getMany();
  }
}
