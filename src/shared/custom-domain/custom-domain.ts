import type { AppConfig } from '../../config/app-config';
import { type DomainName, type DomainRules, InvalidDomainError, normaliseDomain } from '../domain-name';
import { type DnsRecord, type DomainStatus, newDomainToken, recordsToCreate } from './domain-check';
import { domainsError } from './domains.errors';

export function domainRules(config: AppConfig): DomainRules {
  return { sitesDomain: config.SITES_DOMAIN, apiHosts: config.apiHosts };
}

/**
 * The canonical custom domain for a request's `raw` name, or a 400 `invalid_domain`
 * naming what is wrong: the controller's parse, where the name enters.
 */
export function checkCustomDomain(raw: string, config: AppConfig): DomainName {
  try {
    return normaliseDomain(raw, domainRules(config));
  } catch (err) {
    if (err instanceof InvalidDomainError) throw domainsError('invalid_domain', err.message);
    throw err;
  }
}

/**
 * A custom domain's columns on its project's row (src/projects/project.entity.ts), named
 * here rather than picked from the entity: projects builds on this file, not the reverse.
 */
export interface DomainColumns {
  customDomain: string | null;
  domainStatus: DomainStatus | null;
  domainToken: string | null;
  domainVerifiedAt: Date | null;
  domainCheckedAt: Date | null;
  domainFailingSince: Date | null;
}

/**
 * The column changes of `PATCH {custom_domain}`: attaching or changing the name
 * starts over (pending, a new token, nothing verified), null detaches it, and the
 * name already attached changes nothing (it stays verified). A name is exclusive
 * once verified (UQ_projects_custom_domain covers verified rows only): several
 * projects may wait on one name, and the one whose token the domain's DNS publishes
 * gets it; two racing to verify cannot both.
 */
export function customDomainChanges(domain: DomainName | null, current: Pick<DomainColumns, 'customDomain'>): Partial<DomainColumns> {
  if (domain === current.customDomain) return {};
  return {
    customDomain: domain,
    domainStatus: domain === null ? null : 'pending',
    domainToken: domain === null ? null : newDomainToken(),
    domainVerifiedAt: null,
    domainCheckedAt: null,
    domainFailingSince: null,
  };
}

/** Where the domain's CNAME should point: the project's own site host. */
export function cnameTarget(slug: string, config: AppConfig): string {
  return `${slug}.${config.SITES_DOMAIN}`;
}

/** The records to create for the project's domain, or null when none is attached. */
export function domainRecords(p: Pick<DomainColumns, 'customDomain' | 'domainToken'> & { slug: string }, config: AppConfig): DnsRecord[] | null {
  if (!p.customDomain || !p.domainToken) return null;
  return recordsToCreate(p.customDomain, p.domainToken, cnameTarget(p.slug, config));
}
