import { Entity, PrimaryColumn } from 'typeorm';

import { BigintColumn, KeyedRow, UpdatedAtColumn } from '../../database/columns';
import { Project } from '../../projects/project.entity';

/**
 * The one comment the builds of a pull request keep up to date on the forge, by the id its
 * creation returned (a forge's id; bigint, as GitHub's pass 2^31). Written by ForgeFeedback.
 */
@Entity('pull_request_comments')
export class PullRequestComment extends KeyedRow('pull_request_comments', 'project', () => Project) {
  @PrimaryColumn('integer', { name: 'pull_request', primaryKeyConstraintName: 'PK_pull_request_comments' })
  pullRequest: number;

  @BigintColumn({ name: 'comment_id' })
  commentId: number;

  @UpdatedAtColumn()
  updatedAt: Date;
}
