import { Column, Entity } from 'typeorm';

import { KeyedRow, ReferenceColumn } from '../database/columns';
import { Project } from '../projects/project.entity';

/**
 * Number of leads per project, kept in the same transaction as every insert and
 * delete: `count(*)` over a million leads takes far longer than a listing may.
 */
@Entity('lead_counters')
export class LeadCounter extends KeyedRow('lead_counters', 'project', () => Project, 'one') {
  @ReferenceColumn('workspace_id', { index: 'IDX_lead_counters_workspace' })
  workspaceId: string;

  @Column('integer', { name: 'lead_count', default: 0 })
  leadCount: number;
}
