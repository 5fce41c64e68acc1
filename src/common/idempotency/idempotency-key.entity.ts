import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { TimestampColumn } from '../../database/columns';

@Entity('idempotency_keys')
export class IdempotencyKey {
  @PrimaryColumn('text', { name: 'workspace_id' })
  workspaceId: string;

  @PrimaryColumn('text')
  key: string;

  /** SHA-256 of method, route and body: the same key with another request is refused. */
  @Column('text', { name: 'request_hash' })
  requestHash: string;

  /** Null while the first request is still running. */
  @Column('integer', { name: 'response_status', nullable: true })
  responseStatus: number | null;

  /** The InstanceLease id of the process that claimed the key; null without a lease. */
  @Column('integer', { name: 'claimed_by', nullable: true })
  claimedBy: number | null;

  @Column('jsonb', { name: 'response_body', nullable: true })
  responseBody: unknown;

  @Index()
  @TimestampColumn('created_at')
  createdAt: Date;
}
