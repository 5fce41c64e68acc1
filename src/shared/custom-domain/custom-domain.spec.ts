import { ApiError } from '../../common/errors';
import { AppConfig } from '../../config/app-config';
import { validateEnv } from '../../config/env.schema';
import { checkCustomDomain, customDomainChanges, domainRecords } from './custom-domain';

const config = AppConfig.from(validateEnv({ SITES_DOMAIN: 'sites.example.net', API_HOSTS: 'api.example.net' }));

const name = (raw: string) => checkCustomDomain(raw, config);

describe('customDomainChanges', () => {
  it('starts a new name pending, with a new token and nothing verified', () => {
    const changes = customDomainChanges(name('WWW.Example.COM.'), { customDomain: null });
    expect(changes).toEqual({
      customDomain: 'www.example.com',
      domainStatus: 'pending',
      domainToken: expect.stringMatching(/^[0-9a-f]{32}$/),
      domainVerifiedAt: null,
      domainCheckedAt: null,
      domainFailingSince: null,
    });
    expect(customDomainChanges(name('www.example.com'), { customDomain: 'old.example.com' }).domainToken).not.toBe(changes.domainToken);
  });

  it('changes nothing for the name already attached, in any spelling', () => {
    expect(customDomainChanges(name('WWW.example.com.'), { customDomain: 'www.example.com' })).toEqual({});
    expect(customDomainChanges(null, { customDomain: null })).toEqual({});
  });

  it('clears every domain field on detach', () => {
    expect(customDomainChanges(null, { customDomain: 'www.example.com' })).toEqual({
      customDomain: null,
      domainStatus: null,
      domainToken: null,
      domainVerifiedAt: null,
      domainCheckedAt: null,
      domainFailingSince: null,
    });
  });

  it("turns a refused name into a 400 invalid_domain (checkCustomDomain, the controller's parse)", () => {
    for (const raw of ['https://x.example.com', 'blog.sites.example.net', 'api.example.net']) {
      let error: unknown;
      try {
        checkCustomDomain(raw, config);
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
