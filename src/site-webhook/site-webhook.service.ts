import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { OutboxService } from '../outbox/outbox.service';
import { siteChangesBeforeCommit, SiteNames } from '../projects/site-events';
import { projectCacheTag } from './cache-tags';
import { signBody } from './signature';
import { SiteWebhookRepository } from './site-webhook.repository';

export const SITE_CHANGE_KIND = 'site_change';
const TIMEOUT_MS = 10_000;

/**
 * Tells a CDN in front what to purge: every transaction that changes what a site
 * serves (deploy, promote, archive, expiry, gate, domain, delete) queues one message
 * per project in the same transaction, and the outbox job POSTs it to
 * SITE_CHANGE_WEBHOOK_URL, signed, retried with backoff, once even with many instances.
 */
@Injectable()
export class SiteWebhookService implements OnModuleInit {
  constructor(
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly projects: SiteWebhookRepository,
    private readonly outbox: OutboxService,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    if (!this.config.SITE_CHANGE_WEBHOOK_URL) return;
    this.dataSource.subscribers.push(siteChangesBeforeCommit((m, changes) => this.queue(m, changes)));
    this.outbox.register(SITE_CHANGE_KIND, (payload, message) => this.send(payload, message.id));
  }

  private async queue(m: EntityManager, changes: Map<string, SiteNames>): Promise<void> {
    const ids = [...changes.keys()];
    // The names as the transaction leaves them, beside those seen when each change was announced.
    const current = await this.projects.currentNames(m, ids);
    for (const row of current) {
      changes.get(row.id)!.slugs.add(row.slug);
      if (row.custom_domain) changes.get(row.id)!.domains.add(row.custom_domain);
    }
    const now = this.clock.now();
    for (const [projectId, names] of changes) {
      const labels = [...names.slugs, ...names.labels];
      const hosts = [...labels.map((label) => `${label}.${this.config.SITES_DOMAIN}`), ...names.domains].sort();
      await this.outbox.enqueue(m, SITE_CHANGE_KIND, { project_id: projectId, hosts, tags: [projectCacheTag(projectId)], changed_at: now.toISOString() }, now);
    }
  }

  private async send(payload: Record<string, unknown>, id: string): Promise<void> {
    const body = JSON.stringify({ id, type: 'site.changed', ...payload });
    const res = await fetch(this.config.SITE_CHANGE_WEBHOOK_URL!, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'statichost-webhook',
        'X-Statichost-Delivery': id,
        'X-Statichost-Signature': signBody(body, this.config.SITE_CHANGE_WEBHOOK_SECRET!),
      },
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: 'manual',
    });
    await res.body?.cancel();
    if (res.status < 200 || res.status >= 300) throw new Error(`the receiver answered ${res.status}`);
  }
}
