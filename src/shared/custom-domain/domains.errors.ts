import { declareErrors } from '../../common/errors';

export const domainsError = declareErrors('domains', {
  invalid_domain: 400,
  no_custom_domain: 409,
  domain_changed: 409,
  dns_timeout: 503,
  dns_unavailable: 503,
});
export type DomainsErrorCode = keyof typeof domainsError.codes;
