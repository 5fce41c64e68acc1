import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';

import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { ROLE_SCOPES } from '../access/permissions';
import { AuditLogService, changedFields } from '../audit/audit-log.service';
import { notFound } from '../common/errors';
import { loadOrCreateSecret } from '../common/secret-file';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { EventBus, type EventWrite } from '../events/event-bus';
import type { EventType, PlatformEvent } from '../events/events';
import { openFields, sealFields } from '../forms/submission-crypto';
import { LeadsKeyring } from '../leads/keyring';
import { openEmail, sealEmail } from '../leads/lead-crypto';
import { MAIL_RETRY_DELAYS_MS, type MailPayload, MailService } from '../mail/mail.service';
import type { DigestMailData, MailTemplate } from '../mail/mail-templates';
import { OutboxGiveUp } from '../outbox/outbox';
import { OutboxService } from '../outbox/outbox.service';
import type { NotificationSettingsView, UpdateNotificationSettingsDto } from './dto/notification-settings.dto';
import type { DigestItemKind } from './notification-digest-item.entity';
import { type NewDigestItem, NotificationsRepository, optedInCondition, type StoredDigestItem } from './notifications.repository';
import { type NotificationTopic, signUnsubscribe, type UnsubscribeGrant, verifyUnsubscribe } from './unsubscribe-token';

/** Entries listed in one digest mail; the rest are counted and left to the dashboard. */
const DIGEST_LISTED = 50;
/** Characters of one field value shown in a digest (the dashboard has the whole). */
const VALUE_SHOWN = 300;

/** The outbox kind of a digest mail: the mail itself sealed, since it lists what visitors typed. */
export const DIGEST_MAIL_KIND = 'notify_digest';

/** What binds a queued digest mail's sealed payload to its outbox message. */
const mailAad = (sealId: string) => Buffer.from(`statichost-notification-digest-mail:v1:${sealId}`, 'utf8');

/** What binds a digest item's sealed content to its row and recipient. */
const itemAad = (id: string, userId: string) => Buffer.from(`statichost-notification-digest:v1:${id}:${userId}`, 'utf8');

/** The topic each event type is mailed under: what `onEvent` acts on (keep the two in step; a type missing here loses its mails on a form post). */
const EVENT_TOPICS: Partial<Record<EventType, NotificationTopic>> = {
  'build.failed': 'build_failed',
  'domain.failed': 'domain_failed',
  'lead.captured': 'digest',
  'form.submitted': 'digest',
};

/**
 * Mail notifications (issue 30): each person chooses, per workspace, mails about failed
 * production builds, domains that stopped verifying, and a digest of new leads and form
 * submissions. Listens on the event bus inside the emitter's transaction: an alert is a
 * mail queued in the outbox there and then; a lead or submission becomes one sealed digest
 * item per opted-in member, sent later by NotificationDigestJob.
 */
@Injectable()
export class NotificationsService implements OnModuleInit {
  private secret: Buffer;

  constructor(
    private readonly repository: NotificationsRepository,
    private readonly events: EventBus,
    private readonly mail: MailService,
    private readonly keyring: LeadsKeyring,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
    private readonly audit: AuditLogService,
  ) {}

  async onModuleInit(): Promise<void> {
    const secret =
      this.config.NOTIFICATIONS_UNSUBSCRIBE_SECRET ??
      (await loadOrCreateSecret(join(this.config.DATA_DIR, 'notifications-unsubscribe.secret'), () => randomBytes(32).toString('base64url')));
    this.secret = Buffer.from(secret, 'utf8');
    this.events.listen(
      (m, event) => this.onEvent(m, event),
      (type, workspace) => {
        const topic = EVENT_TOPICS[type];
        return topic ? optedInCondition(topic, workspace) : 'false';
      },
    );
    this.outbox.register(DIGEST_MAIL_KIND, (payload, message) => this.sendDigestMail(payload, message.id), { retryDelaysMs: MAIL_RETRY_DELAYS_MS });
  }

  /** Opens a queued digest mail and sends it as any mail; one whose key is gone can never be sent. */
  private async sendDigestMail(payload: Record<string, unknown>, messageId: string): Promise<void> {
    const { sealId, keyId, nonce, ciphertext } = payload as { sealId: string; keyId: string; nonce: string; ciphertext: string };
    const key = this.keyring.key(keyId);
    const json = key ? openEmail(key, { nonce: Buffer.from(nonce, 'base64'), ciphertext: Buffer.from(ciphertext, 'base64') }, mailAad(sealId)) : null;
    if (json === null) throw new OutboxGiveUp(`the digest mail is sealed under key ${keyId}, which does not open it any more`);
    await this.mail.send(JSON.parse(json) as MailPayload, messageId);
  }

  async settings(userId: string): Promise<NotificationSettingsView> {
    return { workspaces: await this.repository.forUser(userId) };
  }

  /** Sets one workspace's three choices; a workspace the user is not an active member of is a 404. */
  async update(userId: string, dto: UpdateNotificationSettingsDto): Promise<NotificationSettingsView> {
    const current = await this.repository.forUser(userId);
    if (!current.some((w) => w.workspaceId === dto.workspaceId)) throw notFound('Workspace', dto.workspaceId);
    const change = { buildFailed: dto.buildFailed, domainFailed: dto.domainFailed, digest: dto.digest };
    await this.dataSource.transaction(async (m) => {
      await this.repository.upsert(m, userId, dto.workspaceId, change, this.clock.now());
      await this.audit.record(m, {
        workspaceId: dto.workspaceId,
        action: 'notification_settings.updated',
        target: { type: 'user', id: userId },
        changes: changedFields(change),
      });
    });
    return this.settings(userId);
  }

  /** What a link's token grants, or undefined for a tampered or foreign one. */
  readUnsubscribe(token: unknown): UnsubscribeGrant | undefined {
    return verifyUnsubscribe(this.secret, token);
  }

  /** Turns off what a genuine link names; false for a tampered or foreign token (nothing changes). */
  async unsubscribe(token: unknown): Promise<UnsubscribeGrant | undefined> {
    const grant = verifyUnsubscribe(this.secret, token);
    if (grant) await this.repository.turnOff(grant.userId, grant.workspaceId, grant.topic, this.clock.now());
    return grant;
  }

  /** RFC 2369 + RFC 8058 headers, and the same link for the mail's own text. */
  unsubscribeLink(userId: string, workspaceId: string, topic: NotificationTopic): { url: string; headers: Record<string, string> } {
    const token = signUnsubscribe(this.secret, { userId, workspaceId, topic });
    const url = `${this.config.apiBaseUrl}/notifications/unsubscribe?token=${encodeURIComponent(token)}`;
    return { url, headers: { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } };
  }

  private get settingsUrl(): string {
    return `${this.config.apiBaseUrl}/app/account`;
  }

  /** The EventBus listener (its probe: EVENT_TOPICS, which names every type it acts on): decides through `reader` who gets a mail or a digest item; the mails and items are written in the event's transaction. */
  private async onEvent(reader: EntityManager, event: PlatformEvent): Promise<EventWrite | undefined> {
    switch (event.type) {
      case 'build.failed': {
        if (!event.data.production) return undefined;
        const d = event.data;
        return this.alert(reader, event.workspaceId, 'build_failed', (name, footer) => ({
          template: 'notify_build_failed',
          data: { ...footer, name, projectSlug: d.projectSlug, branch: d.branch, commitSha: d.commitSha, error: d.error, buildUrl: d.dashboardUrl },
        }));
      }
      case 'domain.failed': {
        const d = event.data;
        return this.alert(reader, event.workspaceId, 'domain_failed', (name, footer) => ({
          template: 'notify_domain_failed',
          data: { ...footer, name, projectSlug: d.projectSlug, domain: d.domain, reason: d.reason },
        }));
      }
      case 'lead.captured':
        return this.collect(reader, event.workspaceId, 'lead', event.data.projectId, event.data.projectSlug, event.data.leadId, null, event.personal);
      case 'form.submitted':
        return this.collect(reader, event.workspaceId, 'form', event.data.projectId, event.data.projectSlug, event.data.submissionId, event.data.formName, {
          ...event.personal.fields,
        });
      default:
        return undefined;
    }
  }

  /** One mail to each opted-in member. */
  private async alert(
    reader: EntityManager,
    workspaceId: string,
    topic: NotificationTopic,
    mail: (name: string, footer: { workspace: string; settingsUrl: string; unsubscribeUrl: string }) => MailTemplate,
  ): Promise<EventWrite | undefined> {
    const recipients = await this.repository.recipients(reader, workspaceId, topic);
    if (recipients.length === 0) return undefined;
    return async (m) => {
      const workspace = await this.repository.workspaceName(m, workspaceId);
      const now = this.clock.now();
      for (const r of recipients) {
        const link = this.unsubscribeLink(r.userId, workspaceId, topic);
        await this.mail.queueNotification(
          m,
          workspaceId,
          r.email,
          mail(r.name, { workspace, settingsUrl: this.settingsUrl, unsubscribeUrl: link.url }),
          now,
          link.headers,
        );
      }
    };
  }

  /** One sealed digest item per member who wants the digest. */
  private async collect(
    reader: EntityManager,
    workspaceId: string,
    kind: DigestItemKind,
    projectId: string,
    projectSlug: string,
    refId: string,
    formName: string | null,
    content: Record<string, string>,
  ): Promise<EventWrite | undefined> {
    // The digest shows what the visitors typed: only to roles that may read the workspace's leads (today every role).
    const recipients = (await this.repository.recipients(reader, workspaceId, 'digest')).filter((r) => ROLE_SCOPES[r.role].includes('read'));
    if (recipients.length === 0) return undefined;
    return async (m) => {
      const now = this.clock.now();
      const key = this.keyring.current;
      // Read before the transaction when the emitter planned (a form post): an account may be gone since.
      const held = await this.repository.holdUsers(
        m,
        recipients.map((r) => r.userId),
      );
      const items: NewDigestItem[] = recipients
        .filter((r) => held.has(r.userId))
        .map((r) => {
          const id = randomUUID();
          const sealed = sealFields(key.key, content, itemAad(id, r.userId));
          return { id, userId: r.userId, workspaceId, kind, projectId, projectSlug, refId, formName, keyId: key.id, ...sealed, createdAt: now };
        });
      await this.repository.insertItems(m, items);
    };
  }

  /**
   * Queues one recipient's digest from the items it takes, in `m` (the job's transaction):
   * the items are gone exactly when the mail is queued. Items whose key is gone are skipped.
   */
  async queueDigest(
    m: EntityManager,
    recipient: { userId: string; workspaceId: string; email: string; name: string; workspaceName: string },
    items: StoredDigestItem[],
  ): Promise<number> {
    const data: DigestMailData = {
      name: recipient.name,
      leads: [],
      submissions: [],
      more: 0,
      leadsUrl: `${this.config.apiBaseUrl}/app/w/${recipient.workspaceId}/leads`,
    };
    for (const item of items) {
      const key = this.keyring.key(item.keyId);
      const content = key ? openFields(key, { nonce: item.nonce, ciphertext: item.ciphertext }, itemAad(item.id, item.userId)) : null;
      if (!content) continue;
      if (data.leads.length + data.submissions.length >= DIGEST_LISTED) {
        data.more++;
      } else if (item.kind === 'lead') {
        data.leads.push({ projectSlug: item.projectSlug, email: content.email ?? '' });
      } else {
        const fields = Object.entries(content).map(([k, v]): [string, string] => [k, v.length > VALUE_SHOWN ? `${v.slice(0, VALUE_SHOWN)}…` : v]);
        data.submissions.push({ projectSlug: item.projectSlug, formName: item.formName ?? '', fields });
      }
    }
    const listed = data.leads.length + data.submissions.length + data.more;
    if (listed === 0) return 0;
    const link = this.unsubscribeLink(recipient.userId, recipient.workspaceId, 'digest');
    const mail: MailPayload = {
      to: recipient.email,
      template: 'notify_digest',
      data: { ...data, workspace: recipient.workspaceName, settingsUrl: this.settingsUrl, unsubscribeUrl: link.url },
      headers: link.headers,
    };
    // Sealed in the outbox as the items were (the mail lists what visitors typed), opened only to send it.
    const sealId = randomUUID();
    const current = this.keyring.current;
    const sealed = sealEmail(current.key, JSON.stringify(mail), mailAad(sealId));
    await this.outbox.enqueue(
      m,
      DIGEST_MAIL_KIND,
      { sealId, keyId: current.id, nonce: sealed.nonce.toString('base64'), ciphertext: sealed.ciphertext.toString('base64') },
      this.clock.now(),
    );
    return listed;
  }
}
