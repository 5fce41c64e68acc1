import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { TimestampColumn } from '../database/columns';

/**
 * A message to send outside the database (a webhook call, later mail), written in the
 * same transaction as the change it reports, so it exists exactly when the change does.
 */
@Entity('outbox_messages')
@Index('IDX_outbox_messages_due', ['nextAttemptAt'], { where: '"delivered_at" IS NULL AND "dead_at" IS NULL' })
// The purges of delivered and dead messages (OutboxRepository.purgeBefore), every round.
@Index('IDX_outbox_messages_delivered', ['deliveredAt'], { where: '"delivered_at" IS NOT NULL' })
@Index('IDX_outbox_messages_dead', ['deadAt'], { where: '"dead_at" IS NOT NULL' })
// The fair kinds' walk of share keys and each key's oldest due messages (OutboxRepository.dueInTurns).
@Index('IDX_outbox_messages_turns', ['kind', 'shareKey', 'nextAttemptAt', 'createdAt'], { where: '"delivered_at" IS NULL AND "dead_at" IS NULL' })
export class OutboxMessage {
  @PrimaryColumn('text')
  id: string;

  /** Which handler sends it, e.g. `site_change`. */
  @Column('text')
  kind: string;

  @Column('jsonb')
  payload: Record<string, unknown>;

  @TimestampColumn('created_at')
  createdAt: Date;

  @Column('integer', { default: 0 })
  attempts: number;

  @TimestampColumn('next_attempt_at')
  nextAttemptAt: Date;

  @TimestampColumn('delivered_at', { nullable: true })
  deliveredAt: Date | null;

  /** Set after the last allowed attempt failed: kept for the operator, never retried. */
  @TimestampColumn('dead_at', { nullable: true })
  deadAt: Date | null;

  /** Whose sending time it spends (a webhook delivery's workspace): see OutboxKindOptions.fairShare. */
  @Column('text', { name: 'share_key', nullable: true })
  shareKey: string | null;

  @Column('text', { name: 'last_error', nullable: true })
  lastError: string | null;
}
