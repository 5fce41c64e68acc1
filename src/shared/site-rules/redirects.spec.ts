import fc from 'fast-check';

import { matchRedirect, type MatchTrace, MAX_DYNAMIC_REDIRECTS, MAX_STATIC_REDIRECTS, parseRedirects, type RedirectRules } from './redirects';
import { EMPTY_CONTEXT, NO_NEEDS, type RequestContext } from './request-context';
import { parseRequestPath } from './request-path';
import { MAX_REPORTED_ERRORS } from './rule-file';
import { ruleParsing } from './rule-file.fixture';

const { rules, errorsOf } = ruleParsing(parseRedirects);

function warningsOf(text: string) {
  const result = parseRedirects(Buffer.from(text));
  if (!result.ok) throw new Error(`unexpected errors: ${JSON.stringify(result.errors)}`);
  return result.warnings;
}

const noFiles = () => false;
const allFiles = () => true;

/** Matches a request-target the way the router will: parseRequestPath, then the rules. */
function go(r: RedirectRules, url: string, fileExists: (p: string) => boolean = noFiles) {
  const q = url.indexOf('?');
  const path = parseRequestPath(url);
  if (path === null) return 'refused';
  return matchRedirect(r, path, q === -1 ? '' : url.slice(q + 1), fileExists);
}

describe('parseRedirects', () => {
  it('reads rules, comments, blank lines, CRLF and trailing comments', () => {
    const r = rules('# moved pages\r\n\r\n/home / 301\r\n  /old   /new  \r\n/a /b 302 # temporary\n/spa/* /spa/index.html 200!\n');
    expect(r.rules.map((x) => [x.line, x.source, x.destination, x.status, x.force])).toEqual([
      [3, '/home', '/', 301, false],
      [4, '/old', '/new', 301, false],
      [5, '/a', '/b', 302, false],
      [6, '/spa/*', '/spa/index.html', 200, true],
    ]);
  });

  it('defaults to 301 and accepts every documented status', () => {
    const r = rules(['/a /x', '/b /x 301', '/c /x 302', '/d /x 303', '/e /x 307', '/f /x 308', '/g /x 200', '/h /x 404'].join('\n'));
    expect(r.rules.map((x) => x.status)).toEqual([301, 301, 302, 303, 307, 308, 200, 404]);
  });

  it('accepts absolute http and https destinations with placeholders in the path and query', () => {
    const r = rules('/blog/* https://blog.example.com/:splat 302\n/u/:id http://example.com/users?id=:id\n/port https://example.com:8443/x');
    expect(r.rules).toHaveLength(3);
  });

  it.each([
    ['/a', 1, 'has only "/a"'],
    ['/a /b 301 Role=admin', 1, 'Role= is not supported: it reads Netlify Identity roles'],
    ['/admin/* 200! role=admin', 1, 'Role= is not supported'],
    ['/a /b 302 Cookie=ab_test', 1, 'Cookie= is not supported'],
    ['/a /b 302 Country=usa', 1, 'Country= "usa" is not a two-letter ISO 3166-1 country code'],
    ['/a /b 302 Country=', 1, 'has no value'],
    ['/a /b 302 Language=en_US', 1, 'Language= "en_US" is not a language tag'],
    ['/a /b 302 Country=us Country=ca', 1, 'gives Country= twice'],
    ['/a /b 302 Colour=red', 1, 'is not a condition this service knows'],
    ['/a /b 302 extra', 1, '"extra" is not a condition'],
    ['/a /b Country=us', 1, 'where the status goes; conditions come after the status'],
    ['/a x=:x x=:y /b', 1, 'names the query parameter "x" twice'],
    ['/a/:id id=:id /b', 1, 'captures ":id", a name the rule already uses'],
    ['/a x=:splat /b', 1, 'reserved for the value of "*"'],
    ['/a =x /b', 1, 'is neither a query condition'],
    ['/a 301', 1, 'has no destination; only a source ending in "/*" with status 200'],
    ['/a/* 301', 1, 'has no destination'],
    ['/a /b 302 Sign=API', 1, 'only a proxy rule'],
    ['https://old.example.com:8443/* /x', 1, 'has a port or a placeholder in its host'],
    ['https://:host/* /x', 1, 'has a port or a placeholder in its host'],
    ['https://*.example.com/* /x', 1, 'has "*" in its host'],
    ['https://u@example.com/* /x', 1, 'contains credentials'],
    ['https:///x /y', 1, 'has no host'],
    ['https://example.com/a?b=1 /y', 1, 'has a path that contains "?"'],
    ['/a /b 418', 1, 'status "418" is not one of'],
    ['/a /b 301!!', 1, 'status "301!!"'],
    ['/a /b !', 1, 'status "!"'],
    ['example.com/* /x', 1, 'must be a path starting with "/"'],
    ['old /new', 1, 'must be a path starting with "/"'],
    ['//a /b', 1, 'starts with "//"'],
    ['/a?x=1 /b', 1, 'query strings and fragments are not matched'],
    ['/a/*/b/* /c', 1, 'only one splat'],
    ['/a/:id/:id /c', 1, 'uses the placeholder ":id" twice'],
    ['/a/:splat /c', 1, 'reserved'],
    ['/post-:id /c', 1, 'a placeholder must be a whole segment'],
    ['/a/:id.html /c', 1, 'a placeholder must be a whole segment'],
    ['/a/../b /c', 1, 'not a path any request could have'],
    ['/a/%2e%2e/b /c', 1, 'not a path any request could have'],
    ['/a%2Fb /c', 1, 'not a path any request could have'],
    ['/a//b /c', 1, 'not a path any request could have'],
    ['/caf%E9 /c', 1, 'not a path any request could have'],
    ['/a /../etc/passwd 200', 1, 'is not a path inside the site'],
    ['/a /b/%2e%2e/%2e%2e/x 200', 1, 'is not a path inside the site'],
    ['/a/* /b/../:splat 200', 1, 'is not a path inside the site'],
    ['/a //evil.example/x', 1, 'protocol-relative'],
    ['/a /\\evil.example/x', 1, 'protocol-relative'],
    ['/a evil.example/x', 1, 'must be a path starting with "/" or an http:// or https:// URL'],
    ['/a javascript:alert(1)', 1, 'scheme other than http or https'],
    ['/a javascript:alert(1) 302', 1, 'destination "javascript:alert(1)" uses a scheme other than http or https'],
    ['/a x=1 evil.example/x 302', 1, 'destination "evil.example/x" must be a path starting with "/"'],
    ['/a x=1 y=2', 1, 'has no destination'],
    ['/a ftp://example.com/x', 1, 'scheme other than http or https'],
    ['/a https://example.com/x#top 200', 1, 'has a fragment'],
    ['/a https://example.com/x 404!', 1, 'use 200 to proxy'],
    ['/a /b 302 Sign=SECRET', 1, 'only a proxy rule'],
    ['/a https://example.com/ 200 Sign=9x', 1, 'must name an environment variable'],
    ['/a /b?x=1 200', 1, 'has a query string or fragment'],
    ['/a https://user:pw@example.com/ 301', 1, 'contains credentials'],
    ['/go/:host https://:host/ 302', 1, 'placeholder in the host'],
    ['/go/* https://:splat 302', 1, 'placeholder in the host'],
    ['/go/* https://example.com:splat 302', 1, 'placeholder in the host'],
    ['/a https:// 301', 1, 'not a valid URL'],
    ['/a /a 301', 1, 'redirects "/a" to itself'],
    ['/a/ /a/ 308', 1, 'to itself'],
  ])('refuses %j, naming the line', (text, line, message) => {
    const errors = errorsOf(`# comment\n${text}`);
    expect(errors).toHaveLength(1);
    expect(errors[0].line).toBe(line + 1);
    expect(errors[0].message).toContain(message);
  });

  it('deploys a repeated source with the same conditions, with a warning naming the earlier line', () => {
    expect(warningsOf('/a /b\n/c /d\n/a /e 302')).toEqual([
      { line: 3, message: 'source "/a" is shadowed by line 1 (same source and conditions), so this rule never applies' },
    ]);
    // The same path, spelled differently, is the same source; capture names do not matter.
    expect(warningsOf('/caf%C3%A9 /b\n/café /e 302')[0].message).toContain('is shadowed by line 1');
    expect(warningsOf('/s q=:a /b/:a\n/s q=:b /c/:b')).toEqual([{ line: 2, message: expect.stringContaining('is shadowed by line 1') }]);
    expect(warningsOf('/* /x 302 Country=us,ca\n/* /y 302 country=CA,US')).toEqual([{ line: 2, message: expect.stringContaining('shadowed by line 1') }]);
    expect(warningsOf('https://A.example.com/* /x\nhttps://a.example.com/* /y')).toEqual([{ line: 2, message: expect.stringContaining('shadowed by line 1') }]);
  });

  it('does not warn where a later rule for the same source can still apply', () => {
    // Different conditions, hosts or query values; and an unforced rule followed by a forced
    // one (Netlify's own fixture): the forced one applies where a file shadows the first.
    for (const text of [
      '/ /en 302 Language=en\n/ /fr 302 Language=fr\n/ /other 302',
      '/ page=news /news\n/ page=blog /blog\n/ /home',
      '/a /x\n/a x=:x /y',
      'https://a.example.com/* /x\nhttps://b.example.com/* /y\n/* /z',
      '/admin/* 200\n/admin/* 200!',
    ]) {
      expect(warningsOf(text)).toEqual([]);
    }
    expect(warningsOf('/a /x 301!\n/a /y 301!')).toHaveLength(1);
    expect(warningsOf('/a /x 301!\n/a /y 301')).toHaveLength(1);
  });

  it('warns that every Country= rule never matches when the instance has no GeoIP database', () => {
    const text = '/ /de 302 Country=de\n/ /fr 302 Language=fr\n/x /y 302 Country=us';
    const without = parseRedirects(Buffer.from(text), { geoip: false });
    expect(without.ok && without.warnings).toEqual([
      { line: 1, message: expect.stringContaining('Country= never matches: this instance has no GeoIP database') },
      { line: 3, message: expect.stringContaining('GEOIP_DATABASE') },
    ]);
    expect(warningsOf(text)).toEqual([]);
    expect(parseRedirects(Buffer.from(text), { geoip: true })).toMatchObject({ ok: true, warnings: [] });
  });

  it('reports every bad line, not only the first', () => {
    const errors = errorsOf('/ok /fine\n/a\n/b /c 999\n/d /e\nnope /x');
    expect(errors.map((e) => e.line)).toEqual([2, 3, 5]);
  });

  it('caps the error list and says how many more there were', () => {
    const errors = errorsOf(Array.from({ length: MAX_REPORTED_ERRORS + 7 }, () => 'bad').join('\n'));
    expect(errors).toHaveLength(MAX_REPORTED_ERRORS + 1);
    expect(errors.at(-1)).toEqual({ line: 0, message: '7 more problems not shown; fix the ones above first' });
  });

  it('refuses a line over 1,000 characters, counting characters, not bytes', () => {
    const dest = `/${'é'.repeat(996)}`; // 2 bytes each in UTF-8
    expect(parseRedirects(Buffer.from(`/a ${dest}`)).ok).toBe(true); // 1,000 characters
    expect(errorsOf(`/a ${dest}x`)).toEqual([{ line: 1, message: 'line is 1001 characters long; the limit is 1000' }]);
  });

  it('refuses control characters', () => {
    expect(errorsOf('/a /b\u0000')[0]).toEqual({ line: 1, message: 'line contains a control character (U+0000)' });
  });

  it('refuses a file that is not UTF-8, naming the first bad line', () => {
    const file = Buffer.concat([Buffer.from('/a /b\n/c /d\n/caf'), Buffer.from([0xe9]), Buffer.from(' /x\n')]);
    expect(errorsOf(file)).toEqual([{ line: 3, message: '_redirects is not valid UTF-8 (save it as UTF-8)' }]);
  });

  it('accepts a UTF-8 byte-order mark', () => {
    expect(rules('\ufeff/a /b').rules[0].source).toBe('/a');
  });

  it(`allows ${MAX_STATIC_REDIRECTS} static and ${MAX_DYNAMIC_REDIRECTS} dynamic rules, and refuses one more of either`, () => {
    const statics = Array.from({ length: MAX_STATIC_REDIRECTS }, (_, i) => `/s${i} /t${i}`);
    const dynamics = Array.from({ length: MAX_DYNAMIC_REDIRECTS }, (_, i) => `/d${i}/* /t${i}/:splat`);
    expect(rules([...statics, ...dynamics].join('\n')).rules).toHaveLength(2100);
    expect(errorsOf([...statics, '/one-more /x', ...dynamics].join('\n'))).toEqual([{ line: 2001, message: 'is static rule number 2001; the limit is 2000' }]);
    expect(errorsOf([...dynamics, '/more/:x /x', ...statics].join('\n'))).toEqual([
      { line: 101, message: 'is dynamic rule number 101 (with "*" or a placeholder); the limit is 100' },
    ]);
  });
});

describe('matchRedirect', () => {
  it('redirects a static path, keeping the query string when the destination has none', () => {
    const r = rules('/old /new\n/q /new?from=q 302\n/frag /new#top 307');
    expect(go(r, '/old')).toEqual({ kind: 'redirect', status: 301, location: '/new', force: false, line: 1 });
    expect(go(r, '/old?utm_source=x&a=1')).toMatchObject({ location: '/new?utm_source=x&a=1' });
    expect(go(r, '/q?utm=1')).toMatchObject({ status: 302, location: '/new?from=q' });
    expect(go(r, '/frag?x=1')).toMatchObject({ status: 307, location: '/new?x=1#top' });
    expect(go(r, '/other')).toBeNull();
  });

  it('is exact about the trailing slash and case', () => {
    const r = rules('/about /team');
    expect(go(r, '/about/')).toBeNull();
    expect(go(r, '/About')).toBeNull();
  });

  it('substitutes the splat and placeholders', () => {
    const r = rules(
      ['/news/* /blog/:splat', '/posts/:year/:slug /blog/:year/:slug.html 302', '/docs/* https://docs.example.com/v2/:splat?from=:splat'].join('\n'),
    );
    expect(go(r, '/news/2004/01/my-story')).toMatchObject({ location: '/blog/2004/01/my-story' });
    expect(go(r, '/news/')).toMatchObject({ location: '/blog/' });
    expect(go(r, '/news')).toBeNull();
    expect(go(r, '/posts/2024/hello')).toMatchObject({ status: 302, location: '/blog/2024/hello.html' });
    expect(go(r, '/posts/2024')).toBeNull();
    expect(go(r, '/docs/a/b?q=1')).toMatchObject({ location: 'https://docs.example.com/v2/a/b?from=a%2Fb' });
  });

  it('percent-encodes substituted values', () => {
    const r = rules('/u/:name /people/:name\n/s/* https://example.com/search?q=:splat');
    expect(go(r, '/u/caf%C3%A9%20au%20lait')).toMatchObject({ location: '/people/caf%C3%A9%20au%20lait' });
    expect(go(r, '/s/a&b=c#d')).toMatchObject({ location: 'https://example.com/search?q=a%26b%3Dc' });
  });

  it('matches rules written percent-encoded against decoded requests, and the reverse', () => {
    const r = rules('/authors/c%C3%A9line /authors/about-c%C3%A9line\n/caf\u00e9 /coffee');
    expect(go(r, '/authors/c%C3%A9line')).toMatchObject({ location: '/authors/about-c%C3%A9line' });
    expect(go(r, '/caf%C3%A9')).toMatchObject({ location: '/coffee' });
    expect(go(r, '/cafe%CC%81')).toMatchObject({ location: '/coffee' }); // NFD request, NFC rule
  });

  it('rewrites to a path of the deployment (200) or serves it as a 404', () => {
    const r = rules('/app/* /app/index.html 200\n/en/* /en/404.html 404\n/p/:id /posts/:id/ 200\n/root/* /:splat 200');
    expect(go(r, '/app/settings/profile')).toEqual({ kind: 'rewrite', status: 200, path: 'app/index.html', force: false, line: 1 });
    expect(go(r, '/en/missing?x=1')).toEqual({ kind: 'rewrite', status: 404, path: 'en/404.html', force: false, line: 2 });
    expect(go(r, '/p/caf%C3%A9')).toMatchObject({ path: 'posts/café/' });
    expect(go(r, '/root/')).toMatchObject({ path: '' });
    expect(go(r, '/root/a/b')).toMatchObject({ path: 'a/b' });
  });

  it('applies an unforced rule only when no file answers the path (shadowing), a forced one always', () => {
    const r = rules('/page /elsewhere 301\n/forced /elsewhere 301!\n/* /index.html 200');
    expect(go(r, '/page', allFiles)).toBeNull(); // the catch-all is shadowed too
    const onlyPage = (p: string) => p === 'page';
    expect(go(r, '/page', onlyPage)).toBeNull();
    expect(go(r, '/page', noFiles)).toMatchObject({ location: '/elsewhere' });
    expect(go(r, '/forced', allFiles)).toMatchObject({ location: '/elsewhere', force: true });
  });

  it('asks whether a file exists at most once, and never for a forced rule', () => {
    const r = rules('/a/:x /b 301\n/a/* /c 302\n/f /g 301!');
    const asked: string[] = [];
    const exists = (p: string) => (asked.push(p), true);
    expect(go(r, '/a/x', exists)).toBeNull();
    expect(asked).toEqual(['a/x']);
    asked.length = 0;
    expect(go(r, '/f', exists)).toMatchObject({ location: '/g' });
    expect(asked).toEqual([]);
  });

  it('takes the first matching rule in file order, static or dynamic', () => {
    const r = rules(['/blog/* /first/:splat', '/blog/post /second', '/x /static-first', '/:any /dynamic-second'].join('\n'));
    expect(go(r, '/blog/post')).toMatchObject({ location: '/first/post', line: 1 });
    expect(go(r, '/x')).toMatchObject({ location: '/static-first', line: 3 });
    expect(go(r, '/y')).toMatchObject({ location: '/dynamic-second', line: 4 });
  });

  it('skips a shadowed earlier rule and takes the next forced one', () => {
    const r = rules('/a /b 301\n/a/* /c 302\n/:p /d 302!');
    expect(go(r, '/a', allFiles)).toMatchObject({ location: '/d', line: 3 });
  });

  it('never turns a same-site destination into a protocol-relative Location', () => {
    const r = rules('/go* /:splat 302\n/to/* /:splat/ 302\n/x/:a/* /:splat/:a 302');
    expect(go(r, '/go/evil.example')).toMatchObject({ location: '/evil.example' });
    expect(go(r, '/go/evil.example/%2F')).toBe('refused');
    expect(go(r, '/to/')).toMatchObject({ location: '/' });
    // Non-canonical input (an empty segment) matches nothing, rather than being trusted.
    expect(matchRedirect(r, 'go//evil.example', '', noFiles)).toBeNull();
    expect(matchRedirect(r, '/go/evil.example', '', noFiles)).toBeNull();
    expect(matchRedirect(r, 'to/../../x', '', noFiles)).toBeNull();
    expect(go(r, '/go%5Cevil.example')).toBe('refused');
  });

  it('cannot move an absolute destination to another host', () => {
    const r = rules('/out/* https://example.com/:splat 302\n/q/* https://example.com/?next=:splat 302');
    expect(go(r, '/out/@evil.example')).toMatchObject({ location: 'https://example.com/@evil.example' });
    expect(new URL((go(r, '/out/@evil.example') as { location: string }).location).host).toBe('example.com');
    expect(go(r, '/q/a?b#c')).toMatchObject({ location: 'https://example.com/?next=a' });
  });

  describe('properties', () => {
    const segment = fc.stringMatching(/^[a-zA-Z0-9._~é@:-]{1,6}$/).filter((s) => s !== '.' && s !== '..');
    const requestPath = fc.array(segment, { maxLength: 5 }).chain((segs) => fc.boolean().map((slash) => segs.join('/') + (slash && segs.length ? '/' : '')));

    it('every same-site Location starts with exactly one "/" and stays on the site', () => {
      const r = rules(['/a* /:splat 302', '/b/* /:splat 302', '/c/:x/* /:x/:splat 301', '/* /:splat/x 307'].join('\n'));
      fc.assert(
        fc.property(requestPath, fc.string(), (path, query) => {
          const m = matchRedirect(r, path, query, noFiles);
          if (m?.kind !== 'redirect') return;
          expect(m.location.startsWith('/')).toBe(true);
          expect(m.location.startsWith('//')).toBe(false);
          expect(new URL(m.location, 'https://site.example').host).toBe('site.example');
        }),
      );
    });

    it('agrees with a naive scan of the rules in file order', () => {
      const lines = ['/a /s1', '/a/* /d1/:splat', '/b /s2', '/:x /d2/:x', '/a/b /s3', '/*/c /d3/:splat', '/c /s4 301!', '/* /d4/:splat 302!'];
      const r = rules(lines.join('\n'));
      const literal = fc.constantFrom('a', 'b', 'c', 'a/b', 'x/c', 'a/c', '', 'a/', 'q/r/c');
      fc.assert(
        fc.property(literal, fc.boolean(), (path, exists) => {
          const got = matchRedirect(r, path, '', () => exists);
          const naive = r.rules.find(
            (rule) => (rule.force || !exists) && (rule.pattern.path !== undefined ? rule.pattern.path === path : rule.pattern.regex!.test(`/${path}`)),
          );
          expect(got?.line).toBe(naive?.line);
        }),
      );
    });
  });

  it('looks static rules up instead of scanning them, and scans dynamic rules only up to the match', () => {
    // The speed itself is bench:serve's to measure (a timed bound here failed under a loaded
    // full run); what makes 2,100 rules cheap is which rules a match visits, counted here.
    const statics = Array.from({ length: MAX_STATIC_REDIRECTS }, (_, i) => `/s${i} /t${i}`);
    const dynamics = Array.from({ length: MAX_DYNAMIC_REDIRECTS }, (_, i) => `/d${i}/:a/* /t${i}/:a/:splat`);
    const r = rules([...dynamics.slice(0, 50), ...statics, ...dynamics.slice(50)].join('\n'));
    let visited = 0;
    const counted = {
      ...r,
      dynamic: {
        *[Symbol.iterator]() {
          for (const rule of r.dynamic) {
            visited++;
            yield rule;
          }
        },
      },
    } as unknown as typeof r;
    const visits = (path: string) => {
      visited = 0;
      const match = matchRedirect(counted, path, 'a=1', noFiles);
      return { line: match?.line ?? null, visited };
    };
    // A static rule after 50 dynamic ones: those 50 come first in file order, and the scan stops at the next.
    expect(visits('s1999')).toEqual({ line: 50 + 1999 + 1, visited: 51 });
    expect(visits('d0/a/b')).toEqual({ line: 1, visited: 1 });
    expect(visits('d99/x/y/z')).toEqual({ line: 2100, visited: 100 });
    // No match: every dynamic rule once, none of the 2,000 static ones.
    expect(visits('nothing/here')).toEqual({ line: null, visited: MAX_DYNAMIC_REDIRECTS });
    expect(visits(`${'x/'.repeat(300)}y`)).toEqual({ line: null, visited: MAX_DYNAMIC_REDIRECTS });
  });
});

describe('proxy rules (status 200 to an absolute URL)', () => {
  const proxyRules = (text: string) => {
    const parsed = parseRedirects(Buffer.from(text));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    return parsed.rules;
  };

  it('forwards with the splat, the passed-on query and the signing variable', () => {
    const r = proxyRules('/api/* https://api.example.com/v1/:splat 200! Sign=API_SECRET\n');
    expect(r.proxies).toBe(true);
    expect(matchRedirect(r, 'api/users/7', 'a=1', () => true)).toEqual({
      kind: 'proxy',
      url: 'https://api.example.com/v1/users/7?a=1',
      signed: 'API_SECRET',
      force: true,
      line: 1,
    });
  });

  it('is shadowed by a file when not forced, like a rewrite', () => {
    const r = proxyRules('/api/* https://api.example.com/:splat 200\n');
    expect(matchRedirect(r, 'api/x', '', () => true)).toBeNull();
    expect(matchRedirect(r, 'api/x', '', () => false)).toMatchObject({ kind: 'proxy', url: 'https://api.example.com/x', signed: null });
  });

  it('marks a file without proxy rules', () => {
    expect(proxyRules('/a /b 302\n').proxies).toBe(false);
  });

  it('never lets a query-captured value climb out of the origin path the rule names (".." or "." segments, in any spelling)', () => {
    const r = proxyRules('/files id=:id https://origin.example/files/:id 200\n');
    expect(matchRedirect(r, 'files', 'id=report.pdf', () => false)).toMatchObject({
      kind: 'proxy',
      url: 'https://origin.example/files/report.pdf?id=report.pdf',
    });
    // new URL() would resolve these to https://origin.example/admin or /files/.
    for (const value of ['..%2F..%2Fadmin', '..', '.', '%2e%2e', '%252e%252e%2Fx', 'a%2F.%2Fb']) {
      const found = matchRedirect(r, 'files', `id=${value}`, () => false);
      const url = found?.kind === 'proxy' ? new URL(found.url) : undefined;
      expect([value, url === undefined || url.pathname.startsWith('/files/') ? 'inside' : url.pathname]).toEqual([value, 'inside']);
      expect([value, found?.kind === 'proxy' && /\/\.{1,2}(?:\/|\?|$)/.test(found.url)]).toEqual([value, false]);
    }
  });
});

describe('conditions, repeated sources, the shorthand and domain-level sources (issue 34)', () => {
  const visitor = (over: Partial<RequestContext>): RequestContext => ({ ...EMPTY_CONTEXT, ...over });
  const match = (r: RedirectRules, url: string, context: RequestContext = EMPTY_CONTEXT, trace?: MatchTrace, exists = noFiles) => {
    const q = url.indexOf('?');
    return matchRedirect(r, parseRequestPath(url)!, q === -1 ? '' : url.slice(q + 1), exists, context, trace);
  };
  const freshTrace = (): MatchTrace => ({ conditional: false, language: false, country: false });

  describe('query parameters (Netlify: "/store id=:id /blog/:id")', () => {
    it('matches only when every named parameter is present, extra ones allowed, and captures values', () => {
      const r = rules('/donate source=:source email=:email /donate/usa?source=:source&email=:email 302\n/donate /donate/other 302');
      expect(match(r, '/donate?email=a%40b.example&source=tw&utm=1')).toMatchObject({
        status: 302,
        location: '/donate/usa?source=tw&email=a%40b.example',
        line: 1,
      });
      expect(match(r, '/donate?source=tw')).toMatchObject({ location: '/donate/other?source=tw', line: 2 });
      expect(match(r, '/donate')).toMatchObject({ line: 2 });
    });

    it('uses a captured value in the path, and passes the query on when the destination has none', () => {
      const r = rules('/blog  post=:post_id  /blog/:post_id');
      expect(match(r, '/blog?post=caf%C3%A9+au+lait')).toMatchObject({ location: '/blog/caf%C3%A9%20au%20lait?post=caf%C3%A9+au+lait' });
      // Present but empty still counts as present.
      expect(match(r, '/blog?post=')).toMatchObject({ location: '/blog/?post=' });
      expect(match(r, '/blog?other=1')).toBeNull();
    });

    it('requires a literal value to be equal (decoded), and counts a repeated parameter by its first value', () => {
      const r = rules('/      page=news      /news\n/      _escaped_fragment_=/about    /about');
      expect(match(r, '/?page=news')).toMatchObject({ location: '/news?page=news' });
      expect(match(r, '/?page=News')).toBeNull();
      expect(match(r, '/?page=blog&page=news')).toBeNull();
      expect(match(r, '/?_escaped_fragment_=%2Fabout')).toMatchObject({ location: '/about?_escaped_fragment_=%2Fabout' });
    });

    it('works with a dynamic source, the captures of both merged', () => {
      const r = rules('/shop/:cat id=:id /items/:cat/:id 301');
      expect(match(r, '/shop/shoes?id=7')).toMatchObject({ location: '/items/shoes/7?id=7' });
      expect(match(r, '/shop/shoes')).toBeNull();
    });
  });

  describe('Language= and Country=', () => {
    const r = rules(
      ['/ /fr/ 302 Language=fr', '/ /pt-br/ 302 Language=pt-BR', '/ /anz/ 302 Country=au,NZ', '/ /il-en/ 302 Country=il Language=en', '/ /en/ 302'].join('\n'),
    );

    it('matches the most preferred language by prefix: "fr" takes fr-CA, "pt-BR" takes only pt-br', () => {
      expect(match(r, '/', visitor({ languages: ['fr'] }))).toMatchObject({ location: '/fr/' });
      expect(match(r, '/', visitor({ languages: ['fr-ca', 'en'] }))).toMatchObject({ location: '/fr/' });
      expect(match(r, '/', visitor({ languages: ['pt-br'] }))).toMatchObject({ location: '/pt-br/' });
      expect(match(r, '/', visitor({ languages: ['pt'] }))).toMatchObject({ location: '/en/' });
      expect(match(r, '/', visitor({ languages: ['francais'] }))).toMatchObject({ location: '/en/' });
      // Only the first language counts: a visitor preferring English is not sent to French.
      expect(match(r, '/', visitor({ languages: ['en', 'fr'] }))).toMatchObject({ location: '/en/' });
      expect(match(r, '/', visitor({ languages: [] }))).toMatchObject({ location: '/en/' });
    });

    it('matches the country case-insensitively, never an unknown one, and ANDs conditions', () => {
      expect(match(r, '/', visitor({ country: 'NZ' }))).toMatchObject({ location: '/anz/' });
      expect(match(r, '/', visitor({ country: 'au' }))).toMatchObject({ location: '/anz/' });
      expect(match(r, '/', visitor({ country: null }))).toMatchObject({ location: '/en/' });
      expect(match(r, '/', visitor({ country: 'IL', languages: ['en-gb'] }))).toMatchObject({ location: '/il-en/' });
      expect(match(r, '/', visitor({ country: 'IL', languages: ['de'] }))).toMatchObject({ location: '/en/' });
    });

    it('says what the rules need from the request', () => {
      expect(r.needs).toEqual({ host: false, language: true, country: true });
      expect(rules('/a /b\n/c/* /d/:splat 302').needs).toBe(NO_NEEDS);
      expect(rules('/a x=:x /b').needs).toBe(NO_NEEDS);
      expect(rules('https://a.example/* /b').needs).toEqual({ host: true, language: false, country: false });
    });
  });

  describe('the trace for the router', () => {
    const r = rules(['/a /x 302', '/b /y 302 Language=de', '/c q=:q /z', '/c /w', '/d/* /v 302 Country=de', '/e/* /u 302'].join('\n'));

    it('stays clear when no conditional rule matched the path', () => {
      for (const url of ['/a', '/e/1', '/nothing']) {
        const trace = freshTrace();
        match(r, url, EMPTY_CONTEXT, trace);
        expect(trace).toEqual(freshTrace());
      }
    });

    it('is conditional whenever a conditional rule matched the path, whatever the outcome, and names what was read', () => {
      const t1 = freshTrace();
      expect(match(r, '/b', visitor({ languages: ['en'] }), t1)).toBeNull();
      expect(t1).toEqual({ conditional: true, language: true, country: false });
      const t2 = freshTrace();
      expect(match(r, '/c', EMPTY_CONTEXT, t2)).toMatchObject({ location: '/w' });
      expect(t2).toEqual({ conditional: true, language: false, country: false });
      const t3 = freshTrace();
      expect(match(r, '/d/1', visitor({ country: 'DE' }), t3)).toMatchObject({ location: '/v' });
      expect(t3).toEqual({ conditional: true, language: false, country: true });
    });
  });

  describe('repeated sources: the first rule that matches wins', () => {
    it('falls through to the next rule for the same source when conditions fail', () => {
      const r = rules('/ /de/ 302 Country=de\n/ /at/ 302 Country=at\n/ /en/ 302');
      expect(match(r, '/', visitor({ country: 'AT' }))).toMatchObject({ location: '/at/', line: 2 });
      expect(match(r, '/', visitor({ country: 'US' }))).toMatchObject({ location: '/en/', line: 3 });
    });

    it('with "/admin/* 200" then "/admin/* 200!" (Netlify fixture to_path_forward), the forced one answers over a file', () => {
      const r = rules('/admin/* 200\n/admin/* 200!');
      expect(match(r, '/admin/x', EMPTY_CONTEXT, undefined, noFiles)).toMatchObject({ kind: 'rewrite', line: 1, path: 'admin/x' });
      expect(match(r, '/admin/x', EMPTY_CONTEXT, undefined, allFiles)).toMatchObject({ kind: 'rewrite', line: 2, force: true });
    });
  });

  describe('shorthand "/admin/* 200"', () => {
    it('means "/admin/* /admin/:splat 200", conditions allowed after the status', () => {
      const r = rules('/admin/* 200\n/app/* 200! Country=de');
      expect(r.rules.map((x) => [x.destination, x.status, x.force])).toEqual([
        ['/admin/:splat', 200, false],
        ['/app/:splat', 200, true],
      ]);
      expect(match(r, '/admin/a/b')).toMatchObject({ kind: 'rewrite', path: 'admin/a/b' });
    });
  });

  describe('domain-level sources', () => {
    const r = rules(
      ['https://old.example.com/* https://new.example.com/:splat 301!', 'http://WWW.Example.com/docs/:p /docs/:p 302', '/* /index.html 200'].join('\n'),
    );

    it('match only requests to their host (case-insensitive; the scheme is not compared)', () => {
      expect(match(r, '/a/b?x=1', visitor({ host: 'old.example.com' }))).toMatchObject({
        kind: 'redirect',
        location: 'https://new.example.com/a/b?x=1',
        force: true,
      });
      expect(match(r, '/a/b', visitor({ host: 'new.example.com' }))).toMatchObject({ kind: 'rewrite', path: 'index.html' });
      expect(match(r, '/docs/x', visitor({ host: 'www.example.com' }))).toMatchObject({ location: '/docs/x' });
      expect(match(r, '/a', EMPTY_CONTEXT)).toMatchObject({ kind: 'rewrite' });
      expect(r.rules[1].host).toBe('www.example.com');
    });

    it('use the path alone for the shorthand, never proxying to themselves', () => {
      const short = rules('https://old.example.com/admin/* 200');
      expect(short.rules[0]).toMatchObject({ destination: '/admin/:splat', host: 'old.example.com', target: { kind: 'path' } });
      expect(short.proxies).toBe(false);
    });

    it('take the root path when the source URL has none', () => {
      const root = rules('https://old.example.com https://new.example.com/ 301');
      expect(match(root, '/', visitor({ host: 'old.example.com' }))).toMatchObject({ location: 'https://new.example.com/' });
    });
  });

  describe("Netlify's redirect-parser fixtures (netlify/build packages/redirect-parser/tests/fixtures/redirects_file)", () => {
    // Each file's text, and what Netlify's parser reads from it (tests/line-parser.test.ts).
    it.each([
      ['query', '/      page=news      /news\n/blog  post=:post_id  /blog/:post_id\n/      _escaped_fragment_=/about    /about\n', 3],
      ['conditions_query', '/donate source=:source email=:email /donate/usa?source=:source&email=:email 302 Country=us\n', 1],
      ['conditions_country_language', '/  /china 302 Country=il Language=en\n', 1],
      ['conditions_country', '/  /china 302 Country=ch,tw\n', 1],
      ['conditions_country_case', '/old-path /new-path 200 country=US\n', 1],
      ['conditions_language_case', '/old-path /new-path 200 language=en\n', 1],
      ['to_path_forward', '/admin/* 200\n/admin/* 200!\n', 2],
      ['from_absolute_uri', 'http://hello.bitballoon.com/* http://www.hello.com/:splat\n', 1],
      ['proxy', '/api/*  https://api.bitballoon.com/*  200\n', 1],
      ['signed', '/api/* https://api.example.com/:splat 200! Sign=API_SECRET\n', 1],
      ['signed_backward_compat', '/api/* https://api.example.com/:splat 200! signed=API_SECRET\n', 1],
    ])('accepts %s', (_name, text, count) => {
      expect(rules(text).rules).toHaveLength(count);
    });

    it('reads them as Netlify does', () => {
      const q = rules('/donate source=:source email=:email /donate/usa?source=:source&email=:email 302 Country=us\n').rules[0];
      expect(q.conditions).toEqual({
        query: [
          { key: 'source', capture: 'source', value: '' },
          { key: 'email', capture: 'email', value: '' },
        ],
        languages: null,
        countries: ['US'],
      });
      expect(rules('/  /china 302 Country=ch,tw\n').rules[0].conditions.countries).toEqual(['CH', 'TW']);
      expect(rules('/  /china 302 Country=il Language=en\n').rules[0].conditions).toMatchObject({ countries: ['IL'], languages: ['en'] });
      const signed = rules('/api/* https://api.example.com/:splat 200! signed=API_SECRET\n').rules[0];
      expect([signed.signed, signed.force, signed.target.kind]).toEqual(['API_SECRET', true, 'proxy']);
      const domain = rules('http://hello.bitballoon.com/* http://www.hello.com/:splat\n').rules[0];
      expect([domain.host, domain.pattern.source, domain.status]).toEqual(['hello.bitballoon.com', '/*', 301]);
    });

    it.each([
      ['conditions_role', '/admin/* /admin/:splat 200 Role=admin\n', 'Role= is not supported'],
      ['conditions_roles', '/member/* /member/:splat 200 Role=admin,member\n', 'Role= is not supported'],
      ['conditions_role_case', '/old-path /new-path 200 Role=admin\n', 'Role= is not supported'],
      ['invalid_no_to_status', '/swfobject.html?detectflash=false 301\n', 'query strings and fragments are not matched'],
      ['(no destination)', '/swfobject.html 301\n', 'has no destination'],
      ['invalid_no_to_query', '/swfobject.html?detectflash=false\n', 'has only'],
    ])('refuses %s', (_name, text, message) => {
      expect(errorsOf(text)[0].message).toContain(message);
    });
  });
});

describe('sources under /.netlify/ (Netlify refuses them)', () => {
  it.each(['/.netlify/from /to', 'http://example.com/.netlify/from /to', '/.Netlify/functions/* /x 200', '/.netlify /x'])(
    'refuses %s, naming the line',
    (line) => {
      const parsed = parseRedirects(Buffer.from(`/ok /fine\n${line}\n`));
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.errors).toEqual([{ line: 2, message: expect.stringContaining('is under /.netlify/') }]);
    },
  );

  it('still takes a path that only starts with the same letters', () => {
    expect(parseRedirects(Buffer.from('/.netlifyish /x\n')).ok).toBe(true);
  });
});
