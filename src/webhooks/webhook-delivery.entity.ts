import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { CascadeManyToOne, CreatedAtColumn, TimestampColumn } from '../database/columns';
import { Webhook } from './webhook.entity';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event sent to one endpoint (issue 30): written in the transaction of the change
 * beside its outbox message, updated after every attempt. `id` is the Standard Webhooks
 * message id (`webhook-id`), the same on every attempt and redelivery, so a receiver can
 * drop a repeat.
 */
@Entity('webhook_deliveries')
@Index('IDX_webhook_deliveries_webhook_created', ['webhookId', 'createdAt', 'id'])
@Check('CHK_webhook_deliveries_status', `"status" IN ('pending', 'succeeded', 'failed')`)
export class WebhookDelivery {
  /** `msg_…` */
  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_webhook_deliveries' })
  id: string;

  @Column('text', { name: 'webhook_id' })
  webhookId: string;

  @CascadeManyToOne(() => Webhook, 'webhook_id', 'FK_webhook_deliveries_webhook')
  webhook?: Webhook;

  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('text', { name: 'event_type' })
  eventType: string;

  /**
   * The lead or submission whose personal data the body holds (an endpoint with
   * includePersonalData), so that erasing it erases this record too; null otherwise.
   */
  @Index('IDX_webhook_deliveries_subject', { where: '"subject_id" IS NOT NULL' })
  @Column('text', { name: 'subject_id', nullable: true })
  subjectId: string | null;

  /**
   * The request body exactly as sent (shaped for the endpoint's format and personal-data
   * choice), sealed like the leads' emails since it may hold one: key id, nonce, ciphertext.
   */
  @Column('text', { name: 'body_key_id' })
  bodyKeyId: string;

  @Column('bytea', { name: 'body_nonce' })
  bodyNonce: Buffer;

  @Column('bytea', { name: 'body_ciphertext' })
  bodyCiphertext: Buffer;

  @Column('text')
  status: DeliveryStatus;

  @Column('integer', { default: 0 })
  attempts: number;

  /** The outbox message that sends it now (a redelivery queues a new one). */
  @Column('text', { name: 'outbox_message_id' })
  outboxMessageId: string;

  @Column('integer', { name: 'response_status', nullable: true })
  responseStatus: number | null;

  /** The first 4 KB of the last answer's body. */
  @Column('text', { name: 'response_body', nullable: true })
  responseBody: string | null;

  @Column('integer', { name: 'latency_ms', nullable: true })
  latencyMs: number | null;

  /** Why the last attempt failed when there was no answer (refused address, timeout). */
  @Column('text', { nullable: true })
  error: string | null;

  @TimestampColumn('last_attempt_at', { nullable: true })
  lastAttemptAt: Date | null;

  @CreatedAtColumn()
  createdAt: Date;
}
