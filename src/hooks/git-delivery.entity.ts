import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { CreatedAtColumn, KeyedRow } from '../database/columns';
import { Project } from '../projects/project.entity';

/**
 * A forge webhook delivery already acted on (issue 29), by the forge's delivery id
 * (`X-GitHub-Delivery`, `X-Gitlab-Event-UUID`, `X-Gitea-Delivery`): a redelivery of
 * the same id answers 200 and starts nothing. Old rows are purged by the maintenance jobs.
 */
@Entity('git_deliveries')
@Index('IDX_git_deliveries_created', ['createdAt'])
export class GitDelivery extends KeyedRow('git_deliveries', 'project', () => Project) {
  @PrimaryColumn('text', { name: 'delivery_id', primaryKeyConstraintName: 'PK_git_deliveries' })
  deliveryId: string;

  @Column('text')
  forge: string;

  /** The forge's event name as it sent it (`push`, `Merge Request Hook`…). */
  @Column('text')
  event: string;

  @CreatedAtColumn()
  createdAt: Date;
}
