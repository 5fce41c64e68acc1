import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { GenerateSql } from '../../database/generate-sql';
import type { Build } from '../build.entity';

/** The build record's forge columns (forge_status, forge_error, forge_comment_id), written by ForgeFeedback alone. */
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

  /** The comment the pull request's builds last posted or edited: the one to edit now (null: none yet). */
  @GenerateSql({ params: (f) => [f.projectId, 7] })
  async pullRequestComment(projectId: string, pullRequest: number): Promise<number | null> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT forge_comment_id AS id FROM builds
        WHERE project_id = $1 AND pull_request = $2 AND forge_comment_id IS NOT NULL
        ORDER BY created_at DESC, id DESC LIMIT 1`,
      [projectId, pullRequest],
    );
    return rows[0] ? Number(rows[0].id) : null;
  }

  @GenerateSql({ params: () => ['bld_none', 2_400_000_000] })
  async setPullRequestComment(id: string, commentId: number): Promise<void> {
    await this.dataSource.query(`UPDATE builds SET forge_comment_id = $2 WHERE id = $1`, [id, commentId]);
  }
}
