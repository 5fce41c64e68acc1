import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { AuditLogService } from '../audit/audit-log.service';
import { uniqueViolation } from '../common/db-errors';
import { ApiError, notFound } from '../common/errors';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { EventBus } from '../events/event-bus';
import type { Project } from '../projects/project.entity';
import { domainTaken, ProjectsService } from '../projects/projects.service';
import { domainRecords } from '../shared/custom-domain/custom-domain';
import { challengeName, DomainState, judge, nextDomainState, RecordCheck, Verdict } from '../shared/custom-domain/domain-check';
import { domainsError } from '../shared/custom-domain/domains.errors';
import type { Principal } from '../shared/principal';
import { DomainDns } from './domain-dns.service';
import { DomainsRepository } from './domains.repository';

export interface DomainCheckResult {
  /** This check found the token. */
  verified: boolean;
  project: Project;
  records: RecordCheck[];
}

/** Verification of custom domains over DNS: on request, and again in the background. */
@Injectable()
export class DomainsService {
  private readonly logger = new Logger(DomainsService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly domains: DomainsRepository,
    private readonly projects: ProjectsService,
    private readonly dns: DomainDns,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly events: EventBus,
    private readonly audit: AuditLogService,
  ) {}

  private get failAfterMs(): number {
    return this.config.DOMAIN_FAIL_AFTER_HOURS * 3600_000;
  }

  /**
   * POST /projects/:id/verify-domain. DNS is asked with no transaction open (it may
   * take seconds); the outcome is then written under the row lock, and only if the
   * project still has the domain and token that were checked.
   */
  async verify(principal: Principal, projectId: string): Promise<DomainCheckResult> {
    const project = await this.projects.findVisible(principal, projectId);
    if (!project.customDomain || !project.domainToken) {
      throw domainsError(
        'no_custom_domain',
        `Project ${project.id} has no custom domain to verify; attach one with PATCH /projects/${project.id} {custom_domain}`,
      );
    }
    const { verdict, records } = await this.check(project);
    if (verdict === 'inconclusive') throw this.dnsUnavailable(records[0]);
    const checked = project.customDomain;
    return this.inTransactionClaiming(checked, async (m) => {
      const current = await this.lockSame(m, project);
      if (current === 'gone') throw notFound('Project', project.id);
      if (!current) {
        throw domainsError('domain_changed', `The custom domain of project ${project.id} changed while it was being checked; verify again`);
      }
      // Exclusive once verified: another project that verified the name first keeps it.
      if (verdict === 'verified' && current.domainStatus !== 'verified' && (await this.projects.domainVerifiedElsewhere(m, checked, current.id))) {
        throw domainTaken(checked);
      }
      const saved = await this.record(m, current, verdict);
      // Every asked-for check is recorded, a failed one too: its result may stop the domain's site.
      await this.audit.record(m, {
        workspaceId: saved.workspaceId,
        action: 'domain.checked',
        target: { type: 'domain', id: current.customDomain, label: current.customDomain },
        changes: saved.domainStatus === current.domainStatus ? [] : ['status'],
      });
      return { verified: verdict === 'verified', project: saved, records };
    });
  }

  /** Runs `work`; two projects verifying one name at once both pass the check, and the index lets one through. */
  private async inTransactionClaiming<T>(domain: string, work: (m: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(work);
    } catch (err) {
      if (uniqueViolation(err) === 'UQ_projects_custom_domain') throw domainTaken(domain);
      throw err;
    }
  }

  /**
   * Re-checks one verified domain (the background job). Returns what happened, or
   * undefined when the domain changed meanwhile. An unanswered check changes only
   * `domain_checked_at`: our resolvers' outage is not the domain's failure.
   */
  async recheck(project: Project): Promise<{ verdict: Verdict; status: Project['domainStatus'] } | undefined> {
    const { verdict } = await this.check(project);
    return this.dataSource.transaction(async (m) => {
      const current = await this.lockSame(m, project);
      if (!current || current === 'gone') return undefined;
      if (verdict === 'inconclusive') {
        this.logger.warn(`re-check of ${project.customDomain} got no DNS answer from ${this.dns.describeServers()}; trying again next interval`);
        await this.domains.markChecked(m, current.id, this.clock.now());
        return { verdict, status: current.domainStatus };
      }
      const saved = await this.record(m, current, verdict);
      if (saved.domainStatus === 'failed') {
        this.logger.warn(
          `custom domain ${saved.customDomain} of project ${saved.id} failed its checks for ${this.config.DOMAIN_FAIL_AFTER_HOURS} h and stopped serving`,
        );
      }
      return { verdict, status: saved.domainStatus };
    });
  }

  private async check(project: Project): Promise<{ verdict: Verdict; records: RecordCheck[] }> {
    const expected = domainRecords(project, this.config)!;
    const { txt, cname } = await this.dns.lookup(challengeName(project.customDomain!), project.customDomain!);
    return judge(expected, txt, cname);
  }

  /** The project under a row lock; null when its domain or token is no longer the one checked, 'gone' when it was deleted. */
  private async lockSame(m: EntityManager, checked: Project): Promise<Project | null | 'gone'> {
    const current = await this.domains.lockProject(m, checked.id);
    if (!current) return 'gone';
    if (current.customDomain !== checked.customDomain || current.domainToken !== checked.domainToken) return null;
    return current;
  }

  /** Writes the state a conclusive check leads to; a change of what is served is announced to every instance. */
  private async record(m: EntityManager, current: Project, verdict: Exclude<Verdict, 'inconclusive'>): Promise<Project> {
    const before: DomainState = {
      status: current.domainStatus!,
      verifiedAt: current.domainVerifiedAt,
      checkedAt: current.domainCheckedAt,
      failingSince: current.domainFailingSince,
    };
    const next = nextDomainState(before, verdict, this.clock.now(), this.failAfterMs);
    await this.domains.writeState(m, current.id, {
      domainStatus: next.status,
      domainVerifiedAt: next.verifiedAt,
      domainCheckedAt: next.checkedAt,
      domainFailingSince: next.failingSince,
    });
    // Only `verified` is served, so only a move into or out of it changes what the router answers.
    if ((before.status === 'verified') !== (next.status === 'verified')) await this.projects.notifySiteChanged(m, current.id);
    await this.announce(m, current, before.status, next.status);
    return this.domains.getProject(m, current.id);
  }

  /**
   * `domain.verified` when a domain becomes verified (first time, or again after failing);
   * `domain.failed` when a verified one stops (its failure window ran out). A pending
   * domain never gives up here (it is checked only on request), so it never fails.
   */
  private async announce(m: EntityManager, project: Project, before: DomainState['status'], after: DomainState['status']): Promise<void> {
    const ref = { projectId: project.id, projectSlug: project.slug, domain: project.customDomain! };
    const timestamp = this.clock.now();
    if (before !== 'verified' && after === 'verified') {
      await this.events.emit(m, { type: 'domain.verified', workspaceId: project.workspaceId, timestamp, data: ref });
    } else if (before === 'verified' && after === 'failed') {
      const reason = `the TXT record ${challengeName(ref.domain)} has not held the verification token for ${this.config.DOMAIN_FAIL_AFTER_HOURS} h`;
      await this.events.emit(m, { type: 'domain.failed', workspaceId: project.workspaceId, timestamp, data: { ...ref, reason } });
    }
  }

  private dnsUnavailable(txt: RecordCheck): ApiError {
    const timedOut = txt.error === 'ETIMEOUT' || txt.error === 'ECANCELLED';
    const message = timedOut
      ? `DNS did not answer the lookup of ${txt.name} within ${this.dns.timeoutMs} ms (asked ${this.dns.describeServers()}); nothing was changed, try again`
      : `DNS lookup of ${txt.name} failed (${txt.error}, asked ${this.dns.describeServers()}); nothing was changed, try again`;
    const error = domainsError(timedOut ? 'dns_timeout' : 'dns_unavailable', message);
    return Object.assign(error, { headers: { 'Retry-After': '30' } });
  }
}
