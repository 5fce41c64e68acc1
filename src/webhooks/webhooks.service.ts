import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';

import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { DataSource, type EntityManager } from 'typeorm';
import { Agent, request } from 'undici';

import { AuditLogService, changedFields } from '../audit/audit-log.service';
import { attemptCounter } from '../common/attempt-counter';
import { tooManyAttempts } from '../common/errors';
import { newId } from '../common/ids';
import { type Paginated, paginated } from '../common/pagination';
import { Clock, DAY_MS } from '../common/time';
import { AppConfig } from '../config/app-config';
import { EventBus, type EventWrite } from '../events/event-bus';
import { eventBody, type PlatformEvent } from '../events/events';
import { LeadsKeyring } from '../leads/keyring';
import { openEmail, sealEmail } from '../leads/lead-crypto';
import { MailService } from '../mail/mail.service';
import { OutboxGiveUp } from '../outbox/outbox';
import { OutboxService } from '../outbox/outbox.service';
import { guardedConnect, resolverOf } from '../shared/guarded-lookup';
import { addressRefusal } from '../shared/outbound-address';
import { type Principal, workspaceOf } from '../shared/principal';
import { WorkspacesRepository } from '../workspaces/workspaces.repository';
import type { CreateWebhookDto, UpdateWebhookDto } from './dto/webhook.dto';
import { Webhook, type WebhookFormat } from './webhook.entity';
import { deliveryView, type WebhookDeliveryView, type WebhookView, webhookView, type WebhookWithSecretView } from './webhook.view';
import { WebhookDelivery } from './webhook-delivery.entity';
import { requestBody, SECRET_PREFIX, signedHeaders } from './webhook-payload';
import { bodyAad, secretAad } from './webhook-seals';
import { isSlackUrl, webhookUrlRefusal } from './webhook-url';
import { webhooksError } from './webhooks.errors';
import { type AttemptRecord, subscribedCondition, WebhooksRepository } from './webhooks.repository';

export const WEBHOOK_KIND = 'webhook';
/** Standard Webhooks' suggested schedule: at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (≈ a day and a half of tries). */
export const WEBHOOK_RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;
/** An answer later than this is a failure (the issue's 15 s). */
export const WEBHOOK_TIMEOUT_MS = 15_000;
/** Endpoint calls under way at once in one outbox run. */
const CONCURRENCY = 8;
const RESPONSE_BODY_BYTES = 4096;
/** An endpoint failing this long without a success is turned off and its owners mailed. */
export const FAILING_DISABLE_MS = 5 * DAY_MS;

/**
 * A connection the address policy refused (at creation or at a delivery's connect). A name is refused by the kind of address it resolves to, not the address: the answer
 * (and the delivery log, which admins read) must not map the operator's internal names to
 * their addresses for whoever tries them.
 */
class WebhookAddressRefused extends Error {
  constructor(host: string, address: string, reason: string) {
    super(`${host === address ? `${address} is` : `${host} resolves to`} ${reason}: webhooks may not reach it (WEBHOOK_ALLOW_PRIVATE_ADDRESSES)`);
  }
}

/** An endpoint as the audit log names it: by its URL, what a reviewer checks (where do our events go?). */
const webhookTarget = (webhook: Pick<Webhook, 'id' | 'url'>) => ({ type: 'webhook', id: webhook.id, label: webhook.url });

/** Test events and redeliveries per workspace and minute (WebhooksService.manualSends). */
export const MANUAL_SENDS_PER_MINUTE = 30;

/**
 * Outgoing webhooks (issue 30, docs/webhooks.md): endpoints per workspace; every event a
 * workspace's change emits becomes, in that change's transaction, one delivery per
 * subscribed enabled endpoint and an outbox message that sends it, signed per Standard
 * Webhooks, retried on the spec's schedule, once across instances.
 */
@Injectable()
export class WebhooksService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Webhooks');
  private readonly dnsServers: string[];
  private readonly dispatcher: Agent;
  /**
   * Test events and redeliveries a workspace's admins may queue per minute: every other
   * workspace's deliveries share the same senders, and a click is all either costs.
   */
  private readonly manualSends;

  constructor(
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly webhooks: WebhooksRepository,
    private readonly outbox: OutboxService,
    private readonly events: EventBus,
    private readonly keyring: LeadsKeyring,
    private readonly mail: MailService,
    private readonly workspaces: WorkspacesRepository,
    private readonly clock: Clock,
    private readonly audit: AuditLogService,
  ) {
    this.dnsServers = config.dnsServers;
    this.dispatcher = this.makeDispatcher();
    this.manualSends = attemptCounter(dataSource, 'webhook-manual-send', MANUAL_SENDS_PER_MINUTE, 60);
  }

  onModuleInit(): void {
    this.events.listen(
      (m, event) => this.queueEvent(m, event),
      (type, workspace) => (type === 'webhook.test' ? 'false' : subscribedCondition(type, workspace)),
    );
    this.outbox.register(WEBHOOK_KIND, (payload, message) => this.send(payload.deliveryId as string, message.id, message.attempts), {
      retryDelaysMs: WEBHOOK_RETRY_DELAYS_MS,
      concurrency: CONCURRENCY,
      // Workspaces take turns: one queueing thousands of deliveries to a slow endpoint does not fill every round.
      fairShare: true,
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.dispatcher.close();
  }

  async create(principal: Principal, dto: CreateWebhookDto): Promise<WebhookWithSecretView> {
    const workspaceId = workspaceOf(principal);
    await this.checkUrl(dto.url);
    const id = newId('wh');
    const secret = newSecret();
    const sealed = this.seal(secret, secretAad(id));
    const webhook = Object.assign(new Webhook(), {
      id,
      workspaceId,
      url: dto.url,
      description: dto.description ?? null,
      events: dto.events,
      format: dto.format ?? defaultFormat(dto.url),
      includePersonalData: dto.includePersonalData ?? false,
      enabled: true,
      disabledReason: null,
      secretKeyId: sealed.keyId,
      secretNonce: sealed.nonce,
      secretCiphertext: sealed.ciphertext,
      failingSince: null,
      createdAt: this.clock.now(),
      updatedAt: this.clock.now(),
    });
    await this.dataSource.transaction(async (m) => {
      await this.webhooks.insert(m, webhook);
      await this.audit.record(m, { workspaceId, action: 'webhook.created', target: webhookTarget(webhook), changes: changedFields(dto) });
    });
    return { ...webhookView(webhook), secret };
  }

  async list(principal: Principal, page: number, limit: number): Promise<Paginated<WebhookView>> {
    const [rows, total] = await this.webhooks.list(workspaceOf(principal), (page - 1) * limit, limit);
    return paginated(rows.map(webhookView), total, page, limit);
  }

  async get(principal: Principal, id: string): Promise<WebhookView> {
    return webhookView(await this.found(principal, id));
  }

  async update(principal: Principal, id: string, dto: UpdateWebhookDto): Promise<WebhookView> {
    const current = await this.found(principal, id);
    if (dto.url !== undefined) await this.checkUrl(dto.url);
    const patch: Partial<Webhook> = {};
    if (dto.url !== undefined) {
      patch.url = dto.url;
      // A new URL takes its own default shape unless the caller says which.
      if (dto.format === undefined) patch.format = defaultFormat(dto.url);
    }
    if (dto.format !== undefined) patch.format = dto.format;
    if (dto.events !== undefined) patch.events = dto.events;
    if (dto.description !== undefined) patch.description = dto.description;
    if (dto.includePersonalData !== undefined) patch.includePersonalData = dto.includePersonalData;
    if (dto.enabled !== undefined) {
      patch.enabled = dto.enabled;
      // Turned on again by a person: a fresh start, whatever turned it off.
      if (dto.enabled) Object.assign(patch, { disabledReason: null, failingSince: null });
    }
    await this.dataSource.transaction(async (m) => {
      if (Object.keys(patch).length > 0) await this.webhooks.update(m, current.workspaceId, id, patch);
      await this.audit.record(m, {
        workspaceId: current.workspaceId,
        action: 'webhook.updated',
        target: webhookTarget({ id, url: patch.url ?? current.url }),
        changes: changedFields(dto),
      });
    });
    return this.get(principal, id);
  }

  async remove(principal: Principal, id: string): Promise<void> {
    const current = await this.found(principal, id);
    await this.dataSource.transaction(async (m) => {
      if (!(await this.webhooks.delete(current.workspaceId, id, m))) throw webhooksError('webhook_not_found', `Webhook ${id} not found`);
      await this.audit.record(m, { workspaceId: current.workspaceId, action: 'webhook.deleted', target: webhookTarget(current) });
    });
  }

  async rotateSecret(principal: Principal, id: string): Promise<{ secret: string }> {
    const current = await this.found(principal, id);
    const secret = newSecret();
    const sealed = this.seal(secret, secretAad(id));
    await this.dataSource.transaction(async (m) => {
      await this.webhooks.update(m, current.workspaceId, id, { secretKeyId: sealed.keyId, secretNonce: sealed.nonce, secretCiphertext: sealed.ciphertext });
      await this.audit.record(m, { workspaceId: current.workspaceId, action: 'webhook.secret_rotated', target: webhookTarget(current) });
    });
    return { secret };
  }

  /** Sends a `webhook.test` event to this endpoint alone, enabled or not (checking a turned-off endpoint before turning it on is the point). */
  async test(principal: Principal, id: string): Promise<WebhookDeliveryView> {
    const webhook = await this.found(principal, id);
    await this.takeManualSend(webhook.workspaceId);
    const event: PlatformEvent = {
      type: 'webhook.test',
      workspaceId: webhook.workspaceId,
      timestamp: this.clock.now(),
      data: { webhookId: webhook.id, message: 'A test event: this endpoint receives and verifies deliveries.' },
    };
    const delivery = await this.dataSource.transaction((m) => this.queueDelivery(m, webhook, event));
    return deliveryView(delivery, this.openBody(delivery), webhook.url, delivery.createdAt);
  }

  async deliveries(principal: Principal, id: string, page: number, limit: number): Promise<Paginated<WebhookDeliveryView>> {
    const webhook = await this.found(principal, id);
    const { rows, total } = await this.webhooks.deliveries(webhook.workspaceId, id, (page - 1) * limit, limit);
    return paginated(
      rows.map((r) => deliveryView(r.delivery, this.openBody(r.delivery), webhook.url, r.nextAttemptAt)),
      total,
      page,
      limit,
    );
  }

  /** Sends a delivery again (whatever became of it), under the same message id, as a fresh series of attempts. */
  async redeliver(principal: Principal, id: string, deliveryId: string): Promise<WebhookDeliveryView> {
    const webhook = await this.found(principal, id);
    const delivery = await this.webhooks.findDelivery(webhook.workspaceId, id, deliveryId);
    if (!delivery) throw webhooksError('webhook_delivery_not_found', `Delivery ${deliveryId} of webhook ${id} not found`);
    await this.takeManualSend(webhook.workspaceId);
    const now = this.clock.now();
    await this.dataSource.transaction(async (m) => {
      const messageId = await this.outbox.enqueue(m, WEBHOOK_KIND, { deliveryId }, now, webhook.workspaceId);
      await this.webhooks.requeue(m, deliveryId, messageId);
    });
    return deliveryView({ ...delivery, status: 'pending' }, this.openBody(delivery), webhook.url, now);
  }

  private async takeManualSend(workspaceId: string): Promise<void> {
    try {
      await this.manualSends.consume(workspaceId);
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        throw tooManyAttempts(`Workspace ${workspaceId} queued ${MANUAL_SENDS_PER_MINUTE} test events and redeliveries this minute`, err.msBeforeNext);
      }
      throw err;
    }
  }

  /** The EventBus listener: one delivery per subscribed enabled endpoint, written in the change's transaction. */
  private async queueEvent(reader: EntityManager, event: PlatformEvent): Promise<EventWrite | undefined> {
    if (event.type === 'webhook.test') return undefined;
    const endpoints = await this.webhooks.subscribed(reader, event.workspaceId, event.type);
    if (endpoints.length === 0) return undefined;
    return async (m) => {
      // Read before the transaction when the emitter planned (a form post): one may be gone or disabled since.
      const held = await this.webhooks.holdEnabled(
        m,
        endpoints.map((w) => w.id),
      );
      for (const webhook of endpoints) if (held.has(webhook.id)) await this.queueDelivery(m, webhook, event);
    };
  }

  private async queueDelivery(m: EntityManager, webhook: Webhook, event: PlatformEvent): Promise<WebhookDelivery> {
    const id = newId('msg');
    const now = this.clock.now();
    const body = requestBody(webhook.format, eventBody(event, webhook.includePersonalData));
    const sealed = this.seal(body, bodyAad(id));
    const outboxMessageId = await this.outbox.enqueue(m, WEBHOOK_KIND, { deliveryId: id }, now, webhook.workspaceId);
    const delivery = Object.assign(new WebhookDelivery(), {
      id,
      webhookId: webhook.id,
      workspaceId: webhook.workspaceId,
      eventType: event.type,
      subjectId: webhook.includePersonalData ? personalSubject(event) : null,
      bodyKeyId: sealed.keyId,
      bodyNonce: sealed.nonce,
      bodyCiphertext: sealed.ciphertext,
      status: 'pending',
      attempts: 0,
      outboxMessageId,
      responseStatus: null,
      responseBody: null,
      latencyMs: null,
      error: null,
      lastAttemptAt: null,
      createdAt: now,
    } satisfies Omit<WebhookDelivery, 'webhook'>);
    await this.webhooks.insertDelivery(m, delivery);
    return delivery;
  }

  /** The outbox handler: one attempt of one delivery. Throws to be retried, OutboxGiveUp to stop. */
  private async send(deliveryId: string, messageId: string, attempt: number): Promise<void> {
    const delivery = await this.webhooks.delivery(deliveryId);
    // Deleted with its endpoint: nothing left to send.
    if (!delivery) return;
    // A redelivery queued a new message for it: this one's pending retries are replaced, not sent as well.
    if (delivery.outboxMessageId !== messageId) return;
    const webhook = await this.webhooks.byId(delivery.webhookId);
    if (!webhook) return;
    const last = attempt > WEBHOOK_RETRY_DELAYS_MS.length;
    const at = this.clock.now();
    if (!webhook.enabled && delivery.eventType !== 'webhook.test') {
      await this.webhooks.recordAttempt(deliveryId, { status: 'failed', error: 'the endpoint is turned off' });
      throw new OutboxGiveUp('the endpoint is turned off');
    }
    const body = this.openBody(delivery);
    const secret = this.open(webhook.secretKeyId, webhook.secretNonce, webhook.secretCiphertext, secretAad(webhook.id), `The secret of webhook ${webhook.id}`);
    const started = performance.now();
    const record: Partial<AttemptRecord> = { attempts: delivery.attempts + 1, lastAttemptAt: at, responseStatus: null, responseBody: null, error: null };
    try {
      const res = await request(webhook.url, {
        method: 'POST',
        dispatcher: this.dispatcher,
        headers: { 'content-type': 'application/json', 'user-agent': 'statichost-webhooks', ...signedHeaders(secret, delivery.id, at, body) },
        body,
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
        // Redirects are not followed (undici's request never does): a 3xx is a failed attempt.
      });
      record.responseStatus = res.statusCode;
      record.responseBody = await firstBytes(res.body, RESPONSE_BODY_BYTES);
    } catch (err) {
      record.error = describe(err);
    }
    record.latencyMs = Math.round(performance.now() - started);
    const status = record.responseStatus;
    if (status !== null && status !== undefined && status >= 200 && status < 300) {
      await this.webhooks.recordAttempt(deliveryId, { ...record, status: 'succeeded' });
      await this.webhooks.succeeded(webhook.id);
      return;
    }
    const why = record.error ?? `the endpoint answered ${status}`;
    if (status === 410) {
      await this.webhooks.recordAttempt(deliveryId, { ...record, status: 'failed' });
      await this.turnOff(webhook, 'the endpoint answered 410 Gone');
      throw new OutboxGiveUp(why);
    }
    const since = await this.webhooks.failing(webhook.id, at);
    if (since && at.getTime() - since.getTime() >= FAILING_DISABLE_MS) {
      await this.webhooks.recordAttempt(deliveryId, { ...record, status: 'failed' });
      await this.turnOff(webhook, `every delivery failed for 5 days (since ${since.toISOString()}); last: ${why}`);
      throw new OutboxGiveUp(why);
    }
    await this.webhooks.recordAttempt(deliveryId, { ...record, status: last ? 'failed' : 'pending' });
    throw new Error(why);
  }

  /** Turns an endpoint off and, the one time it goes off, mails the workspace's owners in the same transaction. */
  private async turnOff(webhook: Webhook, reason: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      if (!(await this.webhooks.disable(m, webhook.id, reason))) return;
      const now = this.clock.now();
      for (const owner of await this.workspaces.activeOwners(m, webhook.workspaceId)) {
        await this.mail.queue(
          m,
          owner.email,
          { template: 'webhook_disabled', data: { name: owner.name, url: webhook.url, reason, link: `${this.config.apiBaseUrl}/app/webhooks` } },
          now,
        );
      }
    });
    this.logger.warn(`webhook ${webhook.id} turned off: ${reason}`);
  }

  private async found(principal: Principal, id: string): Promise<Webhook> {
    const webhook = await this.webhooks.find(workspaceOf(principal), id);
    if (!webhook) throw webhooksError('webhook_not_found', `Webhook ${id} not found`);
    return webhook;
  }

  /** The URL's text, then every address its name resolves to now (each delivery checks again at connect). */
  private async checkUrl(raw: string): Promise<void> {
    const allow = this.config.WEBHOOK_ALLOW_PRIVATE_ADDRESSES;
    const refusal = webhookUrlRefusal(raw, allow);
    if (refusal) throw webhooksError('webhook_url_refused', refusal);
    const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
    if (allow || isIP(host) !== 0) return;
    let addresses: { address: string }[];
    try {
      addresses = await resolverOf(this.dnsServers, this.config.DNS_TIMEOUT_MS)(host);
    } catch {
      throw webhooksError('webhook_url_refused', `url's host ${host} does not resolve`);
    }
    if (addresses.length === 0) throw webhooksError('webhook_url_refused', `url's host ${host} does not resolve`);
    for (const { address } of addresses) {
      const reason = addressRefusal(address);
      if (reason) throw webhooksError('webhook_url_refused', `url's host ${new WebhookAddressRefused(host, address, reason).message}`);
    }
  }

  /** Connections checked at connect time, on the address connected to (src/shared/guarded-lookup.ts). */
  private makeDispatcher(): Agent {
    return new Agent({
      headersTimeout: WEBHOOK_TIMEOUT_MS,
      bodyTimeout: WEBHOOK_TIMEOUT_MS,
      // Each attempt opens its own connection, so each is checked (and DNS asked) again.
      pipelining: 0,
      connect: guardedConnect(
        {
          allowPrivateAddresses: this.config.WEBHOOK_ALLOW_PRIVATE_ADDRESSES,
          dnsServers: this.dnsServers,
          dnsTimeoutMs: this.config.DNS_TIMEOUT_MS,
          connectTimeoutMs: WEBHOOK_TIMEOUT_MS,
        },
        (host, address, reason) => new WebhookAddressRefused(host, address, reason),
      ),
    });
  }

  private seal(plaintext: string, aad: Buffer): { keyId: string; nonce: Buffer; ciphertext: Buffer } {
    const { id, key } = this.keyring.current;
    return { keyId: id, ...sealEmail(key, plaintext, aad) };
  }

  private open(keyId: string, nonce: Buffer, ciphertext: Buffer, aad: Buffer, what: string): string {
    const key = this.keyring.key(keyId);
    if (!key) throw new Error(`${what} is sealed under key ${keyId}, which is not in LEADS_ENCRYPTION_KEYS any more`);
    const plain = openEmail(key, { nonce, ciphertext }, aad);
    if (plain === null) throw new Error(`${what} does not open under key ${keyId} (changed or moved in the database)`);
    return plain;
  }

  private openBody(d: WebhookDelivery): string {
    return this.open(d.bodyKeyId, d.bodyNonce, d.bodyCiphertext, bodyAad(d.id), `The body of delivery ${d.id}`);
  }
}

function newSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

/** The lead or submission an event's personal data belongs to (what an erasure names), or null for an event without any. */
function personalSubject(event: PlatformEvent): string | null {
  if (event.type === 'lead.captured') return event.data.leadId;
  if (event.type === 'form.submitted') return event.data.submissionId;
  return null;
}

function defaultFormat(url: string): WebhookFormat {
  return isSlackUrl(url) ? 'slack' : 'standard';
}

/**
 * The first `limit` bytes of an answer as text; the rest is not read. NUL becomes U+FFFD:
 * PostgreSQL's text refuses it, and a binary or compressed answer holding one would make the
 * attempt impossible to record, so it would be sent again and again.
 */
async function firstBytes(body: AsyncIterable<Buffer> & { destroy(): void }, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) break;
  }
  body.destroy();
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8').replaceAll('\u0000', '\uFFFD');
}

function describe(err: unknown): string {
  const e = err as Error & { cause?: Error };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s`;
  const cause = e.cause instanceof Error ? e.cause : e;
  return String(cause.message || e.message || err).slice(0, 500);
}
