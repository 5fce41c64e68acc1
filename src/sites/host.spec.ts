import { normaliseHost, routeHost } from './host';

describe('normaliseHost', () => {
  it('ignores case, port and a trailing dot', () => {
    expect(normaliseHost('Blog.LocalHost:3000')).toBe('blog.localhost');
    expect(normaliseHost('blog.localhost.')).toBe('blog.localhost');
    expect(normaliseHost('blog.localhost.:8080')).toBe('blog.localhost');
    expect(normaliseHost('[::1]:3000')).toBe('[::1]');
  });
  it('refuses missing or malformed hosts', () => {
    for (const bad of [undefined, '', ' ', 'a b', 'x/y', '[::1', 'é.com']) expect(normaliseHost(bad)).toBeUndefined();
  });
});

describe('routeHost', () => {
  const dev = { sitesDomain: 'localhost', apiHosts: [] };
  const prod = { sitesDomain: 'sites.example.com', apiHosts: ['api.example.com'] };

  it('sends <slug>.<sites domain> to the site, in any case and with any port', () => {
    expect(routeHost('my-site.localhost:3000', dev)).toEqual({ kind: 'site', slug: 'my-site' });
    expect(routeHost('MY-SITE.Sites.Example.com.', prod)).toEqual({ kind: 'site', slug: 'my-site' });
  });

  it('sends a preview label to the preview route', () => {
    expect(routeHost('my-site--3.localhost:3000', dev)).toEqual({ kind: 'preview', label: 'my-site--3', target: { slug: 'my-site', version: 3 } });
    expect(routeHost('my-site--x.sites.example.com', prod)).toEqual({ kind: 'site', slug: 'my-site--x' });
  });

  it('keeps deeper names under the sites domain as sites (an invalid slug is a 404 page, never the API)', () => {
    expect(routeHost('a.b.localhost', dev)).toEqual({ kind: 'site', slug: 'a.b' });
  });

  it('sends the API host, localhost and IPs to the API in development', () => {
    expect(routeHost('localhost:3000', dev)).toEqual({ kind: 'api' });
    expect(routeHost('127.0.0.1:3000', dev)).toEqual({ kind: 'api' });
    expect(routeHost('[::1]:3000', dev)).toEqual({ kind: 'api' });
    expect(routeHost(undefined, dev)).toEqual({ kind: 'api' });
    expect(routeHost('api.example.com', prod)).toEqual({ kind: 'api' });
  });

  it('sends loopback names to the API in production too: the machine itself calls the app by them', () => {
    expect(routeHost('127.0.0.1:3000', prod)).toEqual({ kind: 'api' });
    expect(routeHost('127.1.2.3', prod)).toEqual({ kind: 'api' });
    expect(routeHost('[::1]:3000', prod)).toEqual({ kind: 'api' });
    expect(routeHost('localhost', prod)).toEqual({ kind: 'api' });
    expect(routeHost('127.example.org', prod)).toEqual({ kind: 'custom', host: '127.example.org' });
  });

  it('never serves a configured API host as a site, even under the sites domain', () => {
    expect(routeHost('api.sites.example.com', { ...prod, apiHosts: ['api.sites.example.com'] })).toEqual({ kind: 'api' });
    // An entry with a port is the same host: never a site's slug under SITES_DOMAIN.
    expect(routeHost('ctl.sites.example.com:8443', { ...prod, apiHosts: ['ctl.sites.example.com:8443'] })).toEqual({ kind: 'api' });
    expect(routeHost('ctl.sites.example.com', { ...prod, apiHosts: ['ctl.sites.example.com:8443'] })).toEqual({ kind: 'api' });
    expect(routeHost('[::1]:3000', { ...prod, apiHosts: ['[::1]:3000'] })).toEqual({ kind: 'api' });
  });

  it('treats other names as custom domains', () => {
    expect(routeHost('www.customer.org', prod)).toEqual({ kind: 'custom', host: 'www.customer.org' });
    expect(routeHost('www.customer.org', dev)).toEqual({ kind: 'custom', host: 'www.customer.org' });
    expect(routeHost('10.0.0.1', prod)).toEqual({ kind: 'custom', host: '10.0.0.1' });
  });
});
