import { Entity, Index, PrimaryColumn } from 'typeorm';

import { BigintColumn, CascadeManyToOne, KeyedRow, TimestampColumn } from '../database/columns';
import { Workspace } from '../workspaces/workspace.entity';
import { Blob } from './blob.entity';

/**
 * A workspace proved it has a blob's bytes (it uploaded them with PUT /v1/blobs).
 * A digest-only deploy may name only such blobs, or blobs the workspace already
 * deployed: knowing a hash must never be enough to pull another workspace's file
 * into a site. Rows go with their blob when the collector deletes it.
 */
@Entity('workspace_blobs')
@Index('IDX_workspace_blobs_sha256', ['sha256'])
export class WorkspaceBlob extends KeyedRow('workspace_blobs', 'workspace', () => Workspace) {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_workspace_blobs' })
  sha256: string;

  @CascadeManyToOne(() => Blob, 'sha256', 'FK_workspace_blobs_blob')
  blob?: Blob;

  @BigintColumn()
  size: number;

  @TimestampColumn('created_at')
  createdAt: Date;
}
