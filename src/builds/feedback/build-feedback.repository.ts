import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { GenerateSql } from '../../database/generate-sql';
import type { Build } from '../build.entity';

/** The build record's forge columns (forge_status, forge_error) and the pull requests' comment ids, written by ForgeFeedback alone. */
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

  /** The comment the pull request's builds keep up to date (null: none yet). */
  @GenerateSql({ params: (f) => [f.projectId, 7] })
  async pullRequestComment(projectId: string, pullRequest: number): Promise<number | null> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT comment_id AS id FROM pull_request_comments WHERE project_id = $1 AND pull_request = $2`,
      [projectId, pullRequest],
    );
    return rows[0] ? Number(rows[0].id) : null;
  }

  /** Records the comment a build posted (or found gone and posted again). */
  @GenerateSql({ params: (f) => [f.projectId, 7, 2_400_000_000] })
  async setPullRequestComment(projectId: string, pullRequest: number, commentId: number): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO pull_request_comments (project_id, pull_request, comment_id) VALUES ($1, $2, $3)
       ON CONFLICT (project_id, pull_request) DO UPDATE SET comment_id = EXCLUDED.comment_id, updated_at = now()`,
      [projectId, pullRequest, commentId],
    );
  }
}
