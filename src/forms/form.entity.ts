import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { CascadeManyToOne, CreatedAtColumn } from '../database/columns';
import { Project } from '../projects/project.entity';

/**
 * A project's form, one per name (issue 30): created when a deployment first declares it,
 * its fields refreshed by each later deployment that declares it. Submissions hang off it,
 * so a form a later deployment drops keeps its submissions. Its counts are in
 * `form_counters` (FormCounterShard).
 */
@Entity('forms')
@Index('UQ_forms_project_name', ['projectId', 'name'], { unique: true })
export class Form {
  /** `frm_…` */
  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_forms' })
  id: string;

  @Column('text', { name: 'project_id' })
  projectId: string;

  @CascadeManyToOne(() => Project, 'project_id', 'FK_forms_project')
  project?: Project;

  /** Denormalised from the project, as leads do. */
  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('text')
  name: string;

  /** The fields of the newest deployment that declared it. */
  @Column('text', { array: true, default: () => "'{}'" })
  fields: string[];

  @CreatedAtColumn()
  createdAt: Date;
}
