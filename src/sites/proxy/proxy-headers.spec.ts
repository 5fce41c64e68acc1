import { answerHeaders, type CookieScope, requestHeaders, setCookieRefusal, withoutCookie } from './proxy-headers';

const pairs = (flat: string[]) => Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i], flat[2 * i + 1]]);
const forwarded = { peer: '203.0.113.7', trusted: false, host: 'shop.sites.example:8080', proto: 'http' as const };

describe('requestHeaders', () => {
  it('leaves out hop-by-hop headers, those Connection names, Host, Authorization and Expect; keeps the rest in order', () => {
    const out = requestHeaders(
      [
        'Host',
        'shop.sites.example',
        'Connection',
        'keep-alive, X-Secret-Hop',
        'Keep-Alive',
        'timeout=5',
        'X-Secret-Hop',
        '1',
        'TE',
        'trailers',
        'Transfer-Encoding',
        'chunked',
        'Upgrade',
        'h2c',
        'Proxy-Authorization',
        'Basic eA==',
        'Authorization',
        'Bearer visitor',
        'Expect',
        '100-continue',
        'Accept',
        'application/json',
        'X-Custom',
        'a',
        'X-Custom',
        'b',
      ],
      'statichost_gate',
      forwarded,
    );
    expect(pairs(out)).toEqual([
      ['Accept', 'application/json'],
      ['X-Custom', 'a'],
      ['X-Custom', 'b'],
      ['X-Forwarded-For', '203.0.113.7'],
      ['X-Forwarded-Host', 'shop.sites.example:8080'],
      ['X-Forwarded-Proto', 'http'],
    ]);
  });

  it('takes the gate cookie out of Cookie and keeps the site’s own; drops the header when nothing is left', () => {
    expect(pairs(requestHeaders(['Cookie', 'a=1; statichost_gate=v1.x; b=2'], 'statichost_gate', forwarded))[0]).toEqual(['Cookie', 'a=1; b=2']);
    expect(requestHeaders(['Cookie', 'statichost_gate=v1.x'], 'statichost_gate', forwarded).includes('Cookie')).toBe(false);
    expect(withoutCookie('statichost_gate_other=1', 'statichost_gate')).toBe('statichost_gate_other=1');
  });

  it('appends to X-Forwarded-For only what a trusted proxy said; a visitor’s own claim is replaced', () => {
    const raw = ['X-Forwarded-For', '10.0.0.1, 198.51.100.2', 'X-Forwarded-Proto', 'https', 'Forwarded', 'for=1.2.3.4', 'X-Real-IP', '1.2.3.4'];
    const untrusted = Object.fromEntries(pairs(requestHeaders(raw, 'g', forwarded)));
    expect(untrusted).toEqual({ 'X-Forwarded-For': '203.0.113.7', 'X-Forwarded-Host': 'shop.sites.example:8080', 'X-Forwarded-Proto': 'http' });
    const trusted = Object.fromEntries(pairs(requestHeaders(raw, 'g', { ...forwarded, peer: '127.0.0.1', trusted: true })));
    expect(trusted['X-Forwarded-For']).toBe('10.0.0.1, 198.51.100.2, 127.0.0.1');
    expect(trusted['X-Forwarded-Proto']).toBe('https');
  });
});

describe('setCookieRefusal', () => {
  const site: CookieScope = { host: 'shop.sites.example', sitesDomain: 'sites.example', apiHosts: ['api.example.com'], gateCookie: 'statichost_gate' };
  const custom: CookieScope = { ...site, host: 'www.shop.example.com' };

  it('keeps host-only cookies and cookies for the request host itself', () => {
    expect(setCookieRefusal('sid=1; Path=/; HttpOnly; Secure', site)).toBeNull();
    expect(setCookieRefusal('sid=1; Domain=shop.sites.example', site)).toBeNull();
    expect(setCookieRefusal('sid=1; Domain=.SHOP.sites.example', site)).toBeNull();
  });

  it('drops a cookie for SITES_DOMAIN or above, another host, a public suffix, or a parent of the API host', () => {
    expect(setCookieRefusal('sid=1; Domain=sites.example', site)).toMatch(/every site under sites.example/);
    expect(setCookieRefusal('sid=1; Domain=example', site)).toMatch(/public suffix|every site/);
    expect(setCookieRefusal('sid=1; Domain=other.sites.example', site)).toMatch(/not this site's host/);
    expect(setCookieRefusal('sid=1; Domain=co.uk', { ...site, host: 'www.shop.co.uk' })).toMatch(/public suffix/);
    expect(setCookieRefusal('sid=1; Domain=github.io', { ...site, host: 'me.github.io' })).toMatch(/public suffix/);
    expect(setCookieRefusal('sid=1; Domain=example.com', { ...custom, apiHosts: ['api.example.com'] })).toMatch(/API/);
  });

  it('keeps a cookie for a custom domain’s own registrable parent', () => {
    expect(setCookieRefusal('sid=1; Domain=shop.example.com', { ...custom, apiHosts: [] })).toBeNull();
  });

  it('never lets the origin set the gate’s access cookie; the last Domain attribute counts', () => {
    expect(setCookieRefusal('statichost_gate=forged; Path=/', site)).toMatch(/gate/);
    expect(setCookieRefusal('sid=1; Domain=shop.sites.example; Domain=sites.example', site)).toMatch(/every site/);
  });

  it('judges a fully qualified Host (trailing ".", which the router serves) and Domain as the names they are', () => {
    const dotted: CookieScope = { ...site, host: 'shop.sites.example.' };
    expect(setCookieRefusal('sid=1; Domain=sites.example.', dotted)).toMatch(/every site under sites.example/);
    expect(setCookieRefusal('sid=1; Domain=example.com.', { ...custom, host: 'www.shop.example.com.' })).toMatch(/API/);
    expect(setCookieRefusal('sid=1; Domain=shop.sites.example.', dotted)).toBeNull();
  });
});

describe('answerHeaders', () => {
  it('drops hop-by-hop, proxy directives, Clear-Site-Data and purge tags; filters Set-Cookie; keeps redirects as they are', () => {
    const refused: string[] = [];
    const out = answerHeaders(
      {
        connection: 'keep-alive, x-hop',
        'x-hop': '1',
        'keep-alive': 'timeout=5',
        'transfer-encoding': 'chunked',
        location: 'https://elsewhere.example/',
        'x-accel-redirect': '/etc/passwd',
        'x-sendfile': '/etc/passwd',
        'clear-site-data': '"cookies"',
        'cache-tag': 'evil',
        'set-cookie': ['a=1; Path=/', 'b=2; Domain=sites.example'],
        'content-type': 'text/plain',
      },
      { host: 'shop.sites.example', sitesDomain: 'sites.example', apiHosts: [], gateCookie: 'statichost_gate' },
      (why) => refused.push(why),
    );
    expect(pairs(out)).toEqual([
      ['location', 'https://elsewhere.example/'],
      ['set-cookie', 'a=1; Path=/'],
      ['content-type', 'text/plain'],
    ]);
    expect(refused).toEqual([expect.stringContaining('sites.example')]);
  });
});
