import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { GenerateSql } from '../../database/generate-sql';
import type { Build } from '../build.entity';

/** The build record's forge columns (forge_status, forge_error), written by ForgeFeedback alone. */
@Injectable()
export class BuildFeedbackRepository {
  constructor(private readonly dataSource: DataSource) {}

  @GenerateSql({ params: () => ['bld_none', 'failed', 'github commit status failed: HTTP 500'] })
  async setForgeStatus(id: string, status: NonNullable<Build['forgeStatus']>, error: string | null): Promise<void> {
    await this.dataSource.query(`UPDATE builds SET forge_status = $2, forge_error = $3 WHERE id = $1`, [id, status, error]);
  }

  /** The newest build of a pull request: only its result goes into the pull request's comment. */
  @GenerateSql({ params: (f) => [f.projectId, 7] })
  async newestOfPullRequest(projectId: string, pullRequest: number): Promise<string | null> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM builds WHERE project_id = $1 AND pull_request = $2 ORDER BY created_at DESC, id DESC LIMIT 1`,
      [projectId, pullRequest],
    );
    return rows[0]?.id ?? null;
  }
}
