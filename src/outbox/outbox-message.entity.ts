import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A message to send outside the database (a webhook call, later mail), written in the
 * same transaction as the change it reports, so it exists exactly when the change does.
 */
@Entity('outbox_messages')
@Index('IDX_outbox_messages_due', ['nextAttemptAt'], { where: '"delivered_at" IS NULL AND "dead_at" IS NULL' })
export class OutboxMessage {
  @PrimaryColumn('text')
  id: string;

  /** Which handler sends it, e.g. `site_change`. */
  @Column('text')
  kind: string;

  @Column('jsonb')
  payload: Record<string, unknown>;

  @Column({ type: 'timestamptz', name: 'created_at', precision: 3 })
  createdAt: Date;

  @Column('integer', { default: 0 })
  attempts: number;

  @Column({ type: 'timestamptz', name: 'next_attempt_at', precision: 3 })
  nextAttemptAt: Date;

  @Column({ type: 'timestamptz', name: 'delivered_at', precision: 3, nullable: true })
  deliveredAt: Date | null;

  /** Set after the last allowed attempt failed: kept for the operator, never retried. */
  @Column({ type: 'timestamptz', name: 'dead_at', precision: 3, nullable: true })
  deadAt: Date | null;

  @Column('text', { name: 'last_error', nullable: true })
  lastError: string | null;
}
