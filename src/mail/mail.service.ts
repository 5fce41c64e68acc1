import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { createTransport } from 'nodemailer';
import type { EntityManager } from 'typeorm';

import { AppConfig } from '../config/app-config';
import { OutboxService } from '../outbox/outbox.service';
import { MailTemplate, renderMail } from './mail-templates';

export const MAIL_KIND = 'mail';
/**
 * Notification alerts (one mail per opted-in member of a workspace, per event): a kind of
 * their own, which the outbox sends apart from MAIL_KIND, so a workspace whose events mail
 * hundreds of members never holds back anyone's verification or password-reset mail.
 */
export const NOTIFICATION_MAIL_KIND = 'notify_mail';

/**
 * When a mail that failed is tried again: over about two days, so an SMTP outage or wrong
 * credentials fixed within that time lose no mail (the outbox's default gives up after about
 * 35 minutes, and a digest's entries are gone once its mail is queued). Then it is dead.
 */
export const MAIL_RETRY_DELAYS_MS: readonly number[] = [5, 30, 120, 300, 900, 1800, 3600, 7200, 14_400, 28_800, 43_200, 86_400].map((s) => s * 1000);
const TIMEOUT_MS = 15_000;

/** `headers`: extra headers of this mail (a notification's List-Unsubscribe). */
export type MailPayload = { to: string; headers?: Record<string, string> } & MailTemplate;

/**
 * Mail goes through the outbox: `queue` writes it in the caller's transaction (so it
 * exists exactly when the change it reports does, and a request never waits for or
 * fails on a mail server), and the outbox job renders and sends it, retried with
 * backoff, once even with several instances. Over SMTP when SMTP_URL is set; otherwise
 * into $DATA_DIR/mail/*.eml with the links logged, so a fresh machine works without one.
 */
@Injectable()
export class MailService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(MailService.name);
  private smtp?: ReturnType<typeof createTransport>;
  private readonly files = createTransport({ streamTransport: true, buffer: true });

  constructor(
    private readonly config: AppConfig,
    private readonly outbox: OutboxService,
  ) {}

  onModuleInit(): void {
    if (this.config.SMTP_URL) {
      this.smtp = createTransport({ url: this.config.SMTP_URL, connectionTimeout: TIMEOUT_MS, greetingTimeout: TIMEOUT_MS, socketTimeout: TIMEOUT_MS });
    }
    this.outbox.register(MAIL_KIND, (payload, message) => this.send(payload as MailPayload, message.id), { retryDelaysMs: MAIL_RETRY_DELAYS_MS });
    // Alerts take turns by workspace, as webhook deliveries do: one workspace's flood never holds back another's.
    this.outbox.register(NOTIFICATION_MAIL_KIND, (payload, message) => this.send(payload as MailPayload, message.id), {
      retryDelaysMs: MAIL_RETRY_DELAYS_MS,
      fairShare: true,
    });
  }

  onModuleDestroy(): void {
    this.smtp?.close();
  }

  /** Queues one mail inside the caller's transaction. */
  async queue(m: EntityManager, to: string, mail: MailTemplate, now: Date, headers?: Record<string, string>): Promise<void> {
    await this.outbox.enqueue(m, MAIL_KIND, { to, ...mail, ...(headers ? { headers } : {}) }, now);
  }

  /**
   * Queues one notification alert of `workspaceId` inside the caller's transaction: sent as
   * `queue`'s are, in a line of its own where workspaces take turns.
   */
  async queueNotification(m: EntityManager, workspaceId: string, to: string, mail: MailTemplate, now: Date, headers: Record<string, string>): Promise<void> {
    await this.outbox.enqueue(m, NOTIFICATION_MAIL_KIND, { to, ...mail, headers }, now, workspaceId);
  }

  /**
   * Renders and sends one mail now, named by its outbox message's id: the mail kind's
   * handler, and the handler of a kind that keeps its mail sealed in the outbox
   * (a notification digest) once it has opened it.
   */
  async send(payload: MailPayload, id: string): Promise<void> {
    const rendered = renderMail({ product: this.config.PRODUCT_NAME, baseUrl: this.config.apiBaseUrl }, payload);
    const host = new URL(this.config.apiBaseUrl).hostname;
    const message = {
      from: this.config.mailFrom,
      to: payload.to,
      subject: rendered.subject,
      text: rendered.text,
      html: rendered.html,
      // The outbox id: a receiver (or a person) can tell a repeat after a crash from a new mail.
      messageId: `<${id}@${host}>`,
      headers: { ...payload.headers, 'Auto-Submitted': 'auto-generated' },
    };
    if (this.smtp) {
      await this.smtp.sendMail(message);
      this.logger.log(`mail ${id} (${payload.template}) sent to ${payload.to}`);
      return;
    }
    const info = await this.files.sendMail(message);
    const dir = join(this.config.DATA_DIR, 'mail');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // Named by the outbox id, so a repeat overwrites rather than duplicates; renamed into place whole.
    const file = join(dir, `${id}.eml`);
    await writeFile(`${file}.tmp`, info.message as Buffer, { mode: 0o600 });
    await rename(`${file}.tmp`, file);
    this.logger.log(`mail ${id} (${payload.template}) to ${payload.to} written to ${file}; links: ${rendered.links.join(' ') || 'none'}`);
  }
}
