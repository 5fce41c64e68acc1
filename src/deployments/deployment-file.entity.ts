import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';

import { Deployment } from './deployment.entity';

/** One manifest entry: a path of a deployment and the content-addressed blob it serves. */
@Entity('deployment_files')
@Index('IDX_deployment_files_sha256', ['sha256'])
export class DeploymentFile {
  @PrimaryColumn('text', { name: 'deployment_id' })
  deploymentId: string;

  @ManyToOne(() => Deployment, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'deployment_id', foreignKeyConstraintName: 'FK_deployment_files_deployment' })
  deployment?: Deployment;

  @PrimaryColumn('text')
  path: string;

  @Column('text')
  sha256: string;

  @Column('bigint', { transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  size: number;

  @Column('text', { name: 'content_type' })
  contentType: string;
}
