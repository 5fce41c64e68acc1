import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';

export interface SiteNamesRow {
  id: string;
  slug: string;
  custom_domain: string | null;
}

/**
 * The purge webhook's one query: the names projects have as the committing transaction
 * leaves them. It reads the projects table, whose owner is the projects module; it is
 * here because it runs inside the commit hook, on that transaction's manager.
 */
@Injectable()
export class SiteWebhookRepository {
  @GenerateSql({ params: (f) => [f.manager, [f.projectId]] })
  currentNames(manager: EntityManager, projectIds: string[]): Promise<SiteNamesRow[]> {
    // A custom domain is the project's own only once verified: a pending claim may name a domain another project serves.
    return manager.query(`SELECT id, slug, CASE WHEN domain_status = 'verified' THEN custom_domain END AS custom_domain FROM projects WHERE id = ANY($1)`, [
      projectIds,
    ]);
  }
}
