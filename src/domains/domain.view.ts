import { iso } from '../common/time';
import type { DomainCheckResult } from './domains.service';

/**
 * The verify-domain answer: whether this check found the token, the domain's state
 * afterwards, and per record what was expected and what DNS returned.
 */
export function verifyDomainView(result: DomainCheckResult) {
  const p = result.project;
  return {
    verified: result.verified,
    custom_domain: p.customDomain,
    domainStatus: p.domainStatus,
    domainVerifiedAt: iso(p.domainVerifiedAt),
    domainCheckedAt: iso(p.domainCheckedAt),
    records: result.records,
  };
}
