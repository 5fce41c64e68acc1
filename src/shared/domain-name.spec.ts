import { itMapsEach } from '../common/cases.fixture';
import { couldBeCustomDomain, type DomainRules, InvalidDomainError, normaliseDomain } from './domain-name';

const rules: DomainRules = { sitesDomain: 'sites.example.net', apiHosts: ['api.example.net', 'console.example.org:8443'] };
const norm = (raw: string) => normaliseDomain(raw, rules);
const refusal = (raw: string): string => {
  try {
    norm(raw);
  } catch (err) {
    if (err instanceof InvalidDomainError) return err.message;
    throw err;
  }
  throw new Error(`${JSON.stringify(raw)} was accepted`);
};

describe('normaliseDomain', () => {
  itMapsEach('%j → %j', norm, [
    ['www.example.com', 'www.example.com'],
    ['WWW.Example.COM', 'www.example.com'],
    ['  www.example.com  ', 'www.example.com'],
    ['www.example.com.', 'www.example.com'],
    ['example.com', 'example.com'],
    ['Bücher.example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['例え.テスト', 'xn--r8jz45g.xn--zckzah'],
    ['ＷＷＷ．ｅｘａｍｐｌｅ．ｃｏｍ', 'www.example.com'],
    ['straße.de', 'xn--strae-oqa.de'],
    ['a-b.c-d.example', 'a-b.c-d.example'],
    ['example.net', 'example.net'],
    ['www.example.org', 'www.example.org'],
  ]);

  it('is idempotent', () => {
    for (const raw of ['Bücher.example.', 'WWW.Example.COM', '例え.テスト']) expect(norm(norm(raw))).toBe(norm(raw));
  });

  it.each([
    ['https://www.example.com', /scheme/],
    ['http://example.com/', /scheme/],
    ['www.example.com/path', /path/],
    ['www.example.com?x=1', /path/],
    ['www.example.com:8080', /port/],
    ['user@www.example.com', /@/],
    ['192.0.2.1', /IP address/],
    ['[2001:db8::1]', /IP address/],
    ['2001:db8::1', /IP address/],
    ['0x7f.1', /IP address/],
    ['localhost', /two labels|localhost/],
    ['intranet', /two labels/],
    ['foo.localhost', /localhost/],
    ['', /must not be empty/],
    ['   ', /must not be empty/],
    ['*.example.com', /wildcard/],
    ['ex ample.com', /spaces/],
    ['a..example.com', /empty label/],
    ['example.com..', /empty label/],
    ['-www.example.com', /invalid label "-www"/],
    ['www-.example.com', /invalid label/],
    ['_dmarc.example.com', /invalid label "_dmarc"/],
    [`${'a'.repeat(64)}.example.com`, /invalid label/],
    [`${Array.from({ length: 5 }, () => 'a'.repeat(60)).join('.')}.com`, /longer than 253/],
    ['xn--zz.example', /not a valid host name/],
    ['example.123', /numeric label|not a valid host name/],
    ['sites.example.net', /sites domain/],
    ['blog.sites.example.net', /sites domain/],
    ['BLOG.Sites.Example.Net.', /sites domain/],
    ['api.example.net', /API's host name api\.example\.net/],
    ['x.api.example.net', /API's host name/],
    ['console.example.org', /API's host name console\.example\.org/],
  ])('refuses %j', (raw, why) => {
    const message = refusal(raw);
    expect(message).toMatch(/^custom_domain: /);
    expect(message).toMatch(why);
  });
});

describe('couldBeCustomDomain', () => {
  it('skips names that can never be attached', () => {
    for (const host of ['localhost', 'app', 'db', '127.0.0.1', '[::1]', '10.1.2.3', 'a.localhost']) expect(couldBeCustomDomain(host)).toBe(false);
  });
  it('looks up dotted names', () => {
    for (const host of ['www.example.com', 'example.com', 'api.internal.example']) expect(couldBeCustomDomain(host)).toBe(true);
  });
});
