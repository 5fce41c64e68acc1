import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { formatBytes } from '../../packages/shared/format-bytes';
import { AuditLogService } from '../audit/audit-log.service';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { EventBus } from '../events/event-bus';
import type { PlatformEvent } from '../events/events';
import { MailService } from '../mail/mail.service';
import { monthKey, nextMonthStart } from '../quotas/quota';
import { QuotaService } from '../quotas/quota.service';
import { SitePauses } from '../quotas/site-pauses.service';
import type { ThresholdMetric } from '../quotas/usage-thresholds';
import { WorkspacesRepository } from '../workspaces/workspaces.repository';
import { bandwidthLimitNote } from './billing-mails';
import { MeteringRepository } from './metering.repository';
import type { SpendCapView } from './metering.view';

const METRICS: Record<ThresholdMetric, { what: string; bytes: boolean; monthly: boolean }> = {
  deploymentsPerMonth: { what: 'deployments', bytes: false, monthly: true },
  storageBytes: { what: 'storage', bytes: true, monthly: false },
  bandwidthBytesPerMonth: { what: 'bandwidth', bytes: true, monthly: true },
  buildMinutesPerMonth: { what: 'build minutes', bytes: false, monthly: true },
};

/**
 * Metering (issue 31): the owner's spend cap, and the mail each owner gets when the
 * workspace crosses 50, 75 or 100 % of a metered limit. The counting itself is the
 * quotas' (deploys, builds, the analytics flush for bandwidth); they emit
 * `usage.threshold` in the transaction that crossed, and the mail is queued in that same
 * transaction here, once per crossing. It goes to the owners whatever their notification
 * settings: it is about what the workspace pays, as a receipt is (docs/billing.md).
 */
@Injectable()
export class MeteringService implements OnModuleInit {
  constructor(
    private readonly metering: MeteringRepository,
    private readonly workspaces: WorkspacesRepository,
    private readonly quotas: QuotaService,
    private readonly pauses: SitePauses,
    private readonly events: EventBus,
    private readonly mail: MailService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly audit: AuditLogService,
    private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    this.events.listen(
      async (_reader, event) => (event.type === 'usage.threshold' ? (m) => this.mailOwners(m, event) : undefined),
      (type) => (type === 'usage.threshold' ? 'true' : 'false'),
    );
  }

  async spendCap(workspaceId: string): Promise<SpendCapView> {
    const [pauseSitesAtLimit, plan, bandwidth] = await Promise.all([
      this.metering.spendCap(workspaceId),
      this.quotas.planOf(workspaceId),
      this.metering.bandwidth(workspaceId, monthKey(this.clock.now())),
    ]);
    return { workspaceId, pauseSitesAtLimit, sitesPaused: this.quotas.sitesPaused(pauseSitesAtLimit, bandwidth, plan.limits) };
  }

  /** Sets the cap; this instance's sites follow at once, the others' within SPEND_CAP_REFRESH_SECONDS. */
  async setSpendCap(workspaceId: string, pauseSitesAtLimit: boolean): Promise<SpendCapView> {
    await this.quotas.planOf(workspaceId); // 404 for a workspace that is gone
    await this.dataSource.transaction(async (m) => {
      await this.metering.setSpendCap(workspaceId, pauseSitesAtLimit, this.clock.now(), m);
      await this.audit.record(m, { workspaceId, action: 'spend_cap.updated', target: { type: 'workspace', id: workspaceId }, changes: ['pauseSitesAtLimit'] });
    });
    await this.pauses.refresh();
    return this.spendCap(workspaceId);
  }

  /** The cap's state beside GET /billing/usage's figures. */
  async spendCapState(workspaceId: string, bandwidth: number, limits: Parameters<QuotaService['sitesPaused']>[2]) {
    const pauseSitesAtLimit = await this.metering.spendCap(workspaceId);
    return { pauseSitesAtLimit, sitesPaused: this.quotas.sitesPaused(pauseSitesAtLimit, bandwidth, limits) };
  }

  private async mailOwners(m: EntityManager, event: Extract<PlatformEvent, { type: 'usage.threshold' }>): Promise<void> {
    const owners = await this.workspaces.activeOwners(m, event.workspaceId);
    if (owners.length === 0) return;
    const workspace = await this.workspaces.getById(m, event.workspaceId);
    const metric = METRICS[event.data.metric as ThresholdMetric];
    if (!metric) return;
    const plan = await this.quotas.planOf(event.workspaceId, m);
    const amount = (n: number) => (metric.bytes ? formatBytes(n) : `${n} ${metric.what}`);
    const bandwidth = event.data.metric === 'bandwidthBytesPerMonth';
    let atLimit: string | null = null;
    if (bandwidth && event.data.percent >= 100) {
      const capped = await this.metering.spendCap(event.workspaceId);
      const overageBilled = this.config.PAYMENT_PROVIDER === 'stripe' && !!this.config.STRIPE_METER_EVENT_NAME && plan.tier !== 'free';
      atLimit = bandwidthLimitNote(capped, overageBilled);
    }
    for (const owner of owners) {
      await this.mail.queue(
        m,
        owner.email,
        {
          template: 'usage_threshold',
          data: {
            name: owner.name,
            workspace: workspace.name,
            what: metric.what,
            used: amount(event.data.used),
            limit: amount(event.data.limit),
            percent: event.data.percent,
            plan: plan.tier,
            resetsAt: metric.monthly ? nextMonthStart(event.timestamp).toISOString() : null,
            atLimit,
            billingUrl: `${this.config.apiBaseUrl}/app/w/${event.workspaceId}/billing`,
          },
        },
        event.timestamp,
      );
    }
  }
}
