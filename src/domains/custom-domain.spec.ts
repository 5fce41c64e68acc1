import { ApiError } from '../common/errors';
import { AppConfig } from '../config/app-config';
import { validateEnv } from '../config/env.schema';
import { customDomainChanges, domainRecords } from './custom-domain';

const config = AppConfig.from(validateEnv({ SITES_DOMAIN: 'sites.example.net', API_HOSTS: 'api.example.net' }));

describe('customDomainChanges', () => {
  it('starts a new name pending, with a new token and nothing verified', () => {
    const changes = customDomainChanges('WWW.Example.COM.', { customDomain: null }, config);
    expect(changes).toEqual({
      customDomain: 'www.example.com',
      domainStatus: 'pending',
      domainToken: expect.stringMatching(/^[0-9a-f]{32}$/),
      domainVerifiedAt: null,
      domainCheckedAt: null,
      domainFailingSince: null,
    });
    expect(customDomainChanges('www.example.com', { customDomain: 'old.example.com' }, config).domainToken).not.toBe(changes.domainToken);
  });

  it('changes nothing for the name already attached, in any spelling', () => {
    expect(customDomainChanges('WWW.example.com.', { customDomain: 'www.example.com' }, config)).toEqual({});
    expect(customDomainChanges(null, { customDomain: null }, config)).toEqual({});
  });

  it('clears every domain field on detach', () => {
    expect(customDomainChanges(null, { customDomain: 'www.example.com' }, config)).toEqual({
      customDomain: null,
      domainStatus: null,
      domainToken: null,
      domainVerifiedAt: null,
      domainCheckedAt: null,
      domainFailingSince: null,
    });
  });

  it('turns a refused name into a 400 invalid_domain', () => {
    for (const raw of ['https://x.example.com', 'blog.sites.example.net', 'api.example.net']) {
      let error: unknown;
      try {
        customDomainChanges(raw, { customDomain: null }, config);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).body()).toMatchObject({ statusCode: 400, code: 'invalid_domain', message: expect.stringMatching(/^custom_domain: /) });
    }
  });
});

describe('domainRecords', () => {
  it('points the CNAME at the project’s own site host', () => {
    expect(domainRecords({ slug: 'blog', customDomain: 'www.example.com', domainToken: 'tok' }, config)).toEqual([
      { type: 'TXT', name: '_statichost-challenge.www.example.com', value: 'tok' },
      { type: 'CNAME', name: 'www.example.com', value: 'blog.sites.example.net' },
    ]);
    expect(domainRecords({ slug: 'blog', customDomain: null, domainToken: null }, config)).toBeNull();
  });
});
