import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { formatBytes } from '../../packages/shared/format-bytes';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { MailService } from '../mail/mail.service';
import type { BillingMail } from '../mail/mail-templates';
import type { PlanLimits } from '../quotas/plans';
import { PlansService } from '../quotas/plans.service';
import { monthKey } from '../quotas/quota';
import { WorkspacesRepository } from '../workspaces/workspaces.repository';
import { BillingRepository } from './billing.repository';

type Template = BillingMail['template'];
type Extra<T extends Template> = Omit<Extract<BillingMail, { template: T }>['data'], 'name' | 'workspace' | 'billingUrl'>;

/** What of `holdings` a plan's `limits` no longer allow, as the mail says it. */
/**
 * What the 100 % bandwidth mail says happens next. Deploys are refused past the month's
 * bandwidth whatever the cap (quota.ts bandwidthQuotaError); overage is billed only where it
 * is reported (Stripe, a meter configured, a paid plan: OverageReporter).
 */
export function bandwidthLimitNote(capped: boolean, overageBilled: boolean): string {
  const deploys = 'New deploys are refused (402) until the month ends or the plan is upgraded.';
  if (capped)
    return `The spend cap is on: the workspace's sites are paused (they answer 503) until the month ends, the plan is upgraded, or the cap is turned off. ${deploys}`;
  return `The spend cap is off: the sites keep serving${overageBilled ? ', and what they serve past the limit is billed as overage on the next invoice' : ''}. ${deploys}`;
}

export function overLimits(
  holdings: { projects: number; storageBytes: number; bandwidthBytes?: number },
  limits: Pick<PlanLimits, 'projects' | 'storageBytes'> & Partial<Pick<PlanLimits, 'bandwidthBytesPerMonth'>>,
  tier: string,
): string[] {
  const over: string[] = [];
  if (limits.projects !== null && holdings.projects > limits.projects) over.push(`${holdings.projects} projects (the ${tier} plan allows ${limits.projects})`);
  if (limits.storageBytes !== null && holdings.storageBytes > limits.storageBytes) {
    over.push(`${formatBytes(holdings.storageBytes)} stored (the ${tier} plan allows ${formatBytes(limits.storageBytes)})`);
  }
  // Deploys are refused past the month's bandwidth too (quota.ts bandwidthQuotaError), until the month ends.
  const bandwidthLimit = limits.bandwidthBytesPerMonth ?? null;
  if (bandwidthLimit !== null && holdings.bandwidthBytes !== undefined && holdings.bandwidthBytes >= bandwidthLimit) {
    over.push(`${formatBytes(holdings.bandwidthBytes)} served this month (the ${tier} plan includes ${formatBytes(bandwidthLimit)} a month)`);
  }
  return over;
}

/**
 * The billing lifecycle's mails, queued in the transaction of the change they report
 * (through the outbox, so they exist exactly when it does) to every active owner.
 */
@Injectable()
export class BillingMails {
  constructor(
    private readonly billing: BillingRepository,
    private readonly workspaces: WorkspacesRepository,
    private readonly mail: MailService,
    private readonly plans: PlansService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /** The workspace's billing page in the dashboard. */
  billingUrl(workspaceId: string): string {
    return `${this.config.apiBaseUrl}/app/w/${workspaceId}/billing`;
  }

  async send<T extends Template>(m: EntityManager, workspaceId: string, template: T, data: Extra<T>): Promise<void> {
    const workspace = await this.workspaces.findById(m, workspaceId);
    if (!workspace) return;
    const now = this.clock.now();
    for (const owner of await this.workspaces.activeOwners(m, workspaceId)) {
      // The template and its data agree by the signature; TypeScript cannot follow it through the spread.
      const mail = {
        template,
        data: { ...data, name: owner.name, workspace: workspace.name, billingUrl: this.billingUrl(workspaceId) },
      } as unknown as BillingMail;
      await this.mail.queue(m, owner.email, mail, now);
    }
  }

  /** "Back on free": says what no longer fits, since deploys wait until it does. */
  async backToFree(m: EntityManager, workspaceId: string, tier: string, reason: 'canceled' | 'grace_over'): Promise<void> {
    const over = overLimits(await this.billing.holdings(m, workspaceId, monthKey(this.clock.now())), this.plans.limits('free'), 'free');
    await this.send(m, workspaceId, 'billing_back_to_free', { tier, reason, over });
  }
}
