import { Column, Entity, Index, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';

import { Project } from '../projects/project.entity';

/**
 * Number of leads per project, kept in the same transaction as every insert and
 * delete: `count(*)` over a million leads takes far longer than a listing may.
 */
@Entity('lead_counters')
export class LeadCounter {
  @PrimaryColumn('text', { name: 'project_id', primaryKeyConstraintName: 'PK_lead_counters' })
  projectId: string;

  @OneToOne(() => Project, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'project_id', foreignKeyConstraintName: 'FK_lead_counters_project' })
  project?: Project;

  @Index('IDX_lead_counters_workspace')
  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('integer', { name: 'lead_count', default: 0 })
  leadCount: number;
}
