import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';
import { lazyHydrator } from '../database/hydrate';
import { preparedQuery } from '../database/prepared-query';
import type { EventType } from '../events/events';
import { Webhook } from './webhook.entity';
import { WebhookDelivery } from './webhook-delivery.entity';

export type WebhookPatch = Partial<
  Pick<
    Webhook,
    | 'url'
    | 'events'
    | 'description'
    | 'enabled'
    | 'disabledReason'
    | 'includePersonalData'
    | 'format'
    | 'failingSince'
    | 'secretKeyId'
    | 'secretNonce'
    | 'secretCiphertext'
  >
>;

export type AttemptRecord = Pick<WebhookDelivery, 'status' | 'attempts' | 'responseStatus' | 'responseBody' | 'latencyMs' | 'error' | 'lastAttemptAt'>;

/** SQL true when `WebhooksRepository.subscribed` would find an endpoint: the EventBus probe of the webhooks listener. */
export function subscribedCondition(type: EventType, workspace: string): string {
  return `EXISTS (SELECT 1 FROM webhooks WHERE workspace_id = ${workspace} AND enabled AND events && ARRAY['${type.replace(/'/g, "''")}', '*']::text[])`;
}

/** Every query on webhooks and webhook_deliveries; each carries the workspace id where a caller names a row. */
@Injectable()
export class WebhooksRepository {
  private readonly hydrateWebhook = lazyHydrator(() => this.dataSource, Webhook);

  constructor(private readonly dataSource: DataSource) {}

  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, sqlWebhook(f.workspaceId)] })
  async insert(m: EntityManager, webhook: Webhook): Promise<void> {
    await m.getRepository(Webhook).insert(webhook);
  }

  @GenerateSql({ params: (f) => [f.workspaceId, 0, 20] })
  list(workspaceId: string, offset: number, limit: number): Promise<[Webhook[], number]> {
    return this.dataSource.getRepository(Webhook).findAndCount({ where: { workspaceId }, order: { createdAt: 'DESC', id: 'DESC' }, skip: offset, take: limit });
  }

  @GenerateSql({ params: (f) => [f.workspaceId, 'wh_sqlsnapshot000000000000000'] })
  find(workspaceId: string, id: string): Promise<Webhook | null> {
    return this.dataSource.getRepository(Webhook).findOneBy({ workspaceId, id });
  }

  /** The endpoint behind a delivery being sent (no workspace: the outbox names it by its own id). */
  @GenerateSql({ params: () => ['wh_sqlsnapshot000000000000000'] })
  byId(id: string): Promise<Webhook | null> {
    return this.dataSource.getRepository(Webhook).findOneBy({ id });
  }

  @GenerateSql({ params: (f) => [f.manager, f.workspaceId, 'wh_sqlsnapshot000000000000000', { enabled: false }] })
  async update(m: EntityManager, workspaceId: string, id: string, patch: WebhookPatch): Promise<boolean> {
    const result = await m.getRepository(Webhook).update({ workspaceId, id }, patch);
    return (result.affected ?? 0) > 0;
  }

  @GenerateSql({ params: (f) => [f.workspaceId, 'wh_sqlsnapshot000000000000000'] })
  async delete(workspaceId: string, id: string, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const result = await manager.getRepository(Webhook).delete({ workspaceId, id });
    return (result.affected ?? 0) > 0;
  }

  /**
   * The workspace's enabled endpoints subscribed to `type` (or to everything), through `m`:
   * the emitter's transaction, or the pool when an emitter plans before its own
   * (EventBus.plan). Prepared and hydrated by hand: every event asks it (each form post,
   * each lead), and TypeORM's query builder cost more to build than the read. The columns
   * are named, not `*`: a prepared `SELECT *` fails ("cached plan must not change result
   * type") on instances still running when a migration adds a column.
   */
  @GenerateSql({ params: (f) => [f.manager, f.workspaceId, 'deployment.created'] })
  async subscribed(m: EntityManager, workspaceId: string, type: string): Promise<Webhook[]> {
    const rows = await preparedQuery<Record<string, unknown>>(
      this.dataSource,
      'webhooks_subscribed',
      `SELECT id, workspace_id, url, description, events, format, include_personal_data, enabled, disabled_reason,
         secret_key_id, secret_nonce, secret_ciphertext, failing_since, created_at, updated_at
       FROM webhooks WHERE workspace_id = $1 AND enabled AND events && $2 ORDER BY created_at, id`,
      [workspaceId, [type, '*']],
      m,
    );
    return rows.map(this.hydrateWebhook);
  }

  /**
   * Which of these endpoints are still there and enabled, held so until the transaction
   * ends (a delete or disable waits for it): an emitter that planned its deliveries before
   * its transaction (EventBus.plan) queues only for these, never for an endpoint deleted
   * meanwhile (a foreign-key failure, which failed the whole write).
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, ['wh_sqlsnapshot000000000000000']] })
  async holdEnabled(m: EntityManager, ids: string[]): Promise<Set<string>> {
    const rows: { id: string }[] = await m.query('SELECT id FROM webhooks WHERE id = ANY($1::text[]) AND enabled ORDER BY id FOR KEY SHARE', [ids]);
    return new Set(rows.map((r) => r.id));
  }

  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, sqlDelivery(f.workspaceId)] })
  async insertDelivery(m: EntityManager, delivery: WebhookDelivery): Promise<void> {
    await m.getRepository(WebhookDelivery).insert(delivery);
  }

  @GenerateSql({ params: () => ['msg_sqlsnapshot000000000000000'] })
  delivery(id: string): Promise<WebhookDelivery | null> {
    return this.dataSource.getRepository(WebhookDelivery).findOneBy({ id });
  }

  @GenerateSql({ params: (f) => [f.workspaceId, 'wh_sqlsnapshot000000000000000', 'msg_sqlsnapshot000000000000000'] })
  findDelivery(workspaceId: string, webhookId: string, id: string): Promise<WebhookDelivery | null> {
    return this.dataSource.getRepository(WebhookDelivery).findOneBy({ workspaceId, webhookId, id });
  }

  /** A page of an endpoint's deliveries, newest first, each with its outbox message's next attempt. */
  @GenerateSql({ params: (f) => [f.workspaceId, 'wh_sqlsnapshot000000000000000', 0, 20] })
  async deliveries(
    workspaceId: string,
    webhookId: string,
    offset: number,
    limit: number,
  ): Promise<{ rows: { delivery: WebhookDelivery; nextAttemptAt: Date | null }[]; total: number }> {
    const qb = this.dataSource
      .getRepository(WebhookDelivery)
      .createQueryBuilder('d')
      .leftJoin('outbox_messages', 'o', 'o.id = d.outbox_message_id AND o.delivered_at IS NULL AND o.dead_at IS NULL')
      .addSelect('o.next_attempt_at', 'next_attempt_at')
      .where('d.workspace_id = :workspaceId AND d.webhook_id = :webhookId', { workspaceId, webhookId })
      .orderBy('d.created_at', 'DESC')
      .addOrderBy('d.id', 'DESC')
      .offset(offset)
      .limit(limit);
    const [{ entities, raw }, total] = await Promise.all([qb.getRawAndEntities<{ next_attempt_at: Date | null }>(), qb.getCount()]);
    return { rows: entities.map((delivery, i) => ({ delivery, nextAttemptAt: raw[i].next_attempt_at })), total };
  }

  @GenerateSql({ params: () => ['msg_sqlsnapshot000000000000000', { status: 'succeeded', attempts: 1 }] })
  async recordAttempt(id: string, record: Partial<AttemptRecord>): Promise<void> {
    await this.dataSource.getRepository(WebhookDelivery).update({ id }, record);
  }

  /** A redelivery: a new outbox message sends the same body under the same id. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, 'msg_sqlsnapshot000000000000000', 'obx_sqlsnapshot0000000000000000'] })
  async requeue(m: EntityManager, id: string, outboxMessageId: string): Promise<void> {
    await m.getRepository(WebhookDelivery).update({ id }, { status: 'pending', outboxMessageId });
  }

  /** Starts the failure streak unless one is under way; the streak's start either way. */
  @GenerateSql({ params: () => ['wh_sqlsnapshot000000000000000', new Date(0)] })
  async failing(id: string, now: Date): Promise<Date | null> {
    // TypeORM answers an UPDATE … RETURNING with [rows, affected].
    const [rows]: [{ failing_since: Date }[], number] = await this.dataSource.query(
      'UPDATE webhooks SET failing_since = COALESCE(failing_since, $2) WHERE id = $1 RETURNING failing_since',
      [id, now],
    );
    return rows[0]?.failing_since ?? null;
  }

  @GenerateSql({ params: () => ['wh_sqlsnapshot000000000000000'] })
  async succeeded(id: string): Promise<void> {
    await this.dataSource.query('UPDATE webhooks SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL', [id]);
  }

  /** Turns an endpoint off for `reason`; true only for the call that turned it off (so its owners are mailed once). */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, 'wh_sqlsnapshot000000000000000', 'gone'] })
  async disable(m: EntityManager, id: string, reason: string): Promise<boolean> {
    const [, affected]: [unknown[], number] = await m.query(
      'UPDATE webhooks SET enabled = false, disabled_reason = $2 WHERE id = $1 AND enabled RETURNING id',
      [id, reason],
    );
    return affected > 0;
  }

  /** Forgets finished deliveries created before `before`; a pending one is kept until it ends. */
  @GenerateSql({ params: () => [new Date(0)] })
  async purgeBefore(before: Date): Promise<number> {
    const result = await this.dataSource
      .getRepository(WebhookDelivery)
      .createQueryBuilder()
      .delete()
      .where("created_at < :before AND status <> 'pending'", { before })
      .execute();
    return result.affected ?? 0;
  }
}

function sqlWebhook(workspaceId: string): Webhook {
  return Object.assign(new Webhook(), {
    id: 'wh_sqlsnapshot000000000000000',
    workspaceId,
    url: 'https://hooks.example.com/in',
    description: null,
    events: ['*'],
    format: 'standard',
    includePersonalData: false,
    enabled: true,
    disabledReason: null,
    secretKeyId: 'k1',
    secretNonce: Buffer.alloc(12),
    secretCiphertext: Buffer.alloc(32),
    failingSince: null,
    createdAt: new Date(0),
    updatedAt: new Date(0),
  });
}

function sqlDelivery(workspaceId: string): WebhookDelivery {
  return Object.assign(new WebhookDelivery(), {
    id: 'msg_sqlsnapshot000000000000000',
    webhookId: 'wh_sqlsnapshot000000000000000',
    workspaceId,
    eventType: 'webhook.test',
    subjectId: null,
    bodyKeyId: 'k1',
    bodyNonce: Buffer.alloc(12),
    bodyCiphertext: Buffer.alloc(32),
    status: 'pending',
    attempts: 0,
    outboxMessageId: 'obx_sqlsnapshot0000000000000000',
    responseStatus: null,
    responseBody: null,
    latencyMs: null,
    error: null,
    lastAttemptAt: null,
    createdAt: new Date(0),
  });
}
