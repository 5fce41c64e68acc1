import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { BigintColumn, CascadeManyToOne } from '../database/columns';
import { Deployment } from './deployment.entity';

/** One manifest entry: a path of a deployment and the content-addressed blob it serves. */
@Entity('deployment_files')
@Index('IDX_deployment_files_sha256', ['sha256'])
export class DeploymentFile {
  @PrimaryColumn('text', { name: 'deployment_id' })
  deploymentId: string;

  @CascadeManyToOne(() => Deployment, 'deployment_id', 'FK_deployment_files_deployment')
  deployment?: Deployment;

  @PrimaryColumn('text')
  path: string;

  @Column('text')
  sha256: string;

  @BigintColumn()
  size: number;

  @Column('text', { name: 'content_type' })
  contentType: string;
}
