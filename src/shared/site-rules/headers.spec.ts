import fc from 'fast-check';

import {
  applyHeaderChanges,
  canMatchTogether,
  gatedHeaderChanges,
  gatedHeaderProblems,
  headersFor,
  MAX_HEADER_BYTES,
  MAX_HEADER_RULES,
  mergeVary,
  parseHeaders,
  previewHeaderChanges,
} from './headers';
import { compileHeaderPathPattern, type HeaderPathPattern, matchHeaderPathPattern } from './pattern';
import { ruleParsing } from './rule-file.fixture';

const { rules, errorsOf } = ruleParsing(parseHeaders);

// The example of Cloudflare's _headers documentation.
const CLOUDFLARE_EXAMPLE = `# This is a comment
/secure/page
  X-Frame-Options: DENY
  X-Content-Type-Options: nosniff
  Referrer-Policy: no-referrer

/static/*
  Access-Control-Allow-Origin: *
  X-Robots-Tag: nosnippet

/*
  X-Robots-Tag: noindex
`;

describe('parseHeaders', () => {
  it('reads blocks of a path and indented headers, with comments and CRLF', () => {
    const r = rules(CLOUDFLARE_EXAMPLE.replace(/\n/g, '\r\n'));
    expect(r.rules.map((x) => [x.line, x.pattern.source, x.set.map((s) => s.name), x.remove])).toEqual([
      [2, '/secure/page', ['X-Frame-Options', 'X-Content-Type-Options', 'Referrer-Policy'], []],
      [7, '/static/*', ['Access-Control-Allow-Origin', 'X-Robots-Tag'], []],
      [11, '/*', ['X-Robots-Tag'], []],
    ]);
  });

  it('reads an unindented "Name: value" under a path as a header line, as both peers do', () => {
    expect(headersFor(rules('/a\nX-Frame-Options: DENY\n  X-Two: 2'), 'a').set).toEqual([
      ['X-Frame-Options', 'DENY'],
      ['X-Two', '2'],
    ]);
  });

  it('deploys a path with no header lines under it, with a warning that it changes nothing', () => {
    for (const [text, line] of [
      ['/a', 1],
      ['/a\n/b\n  X: y', 1],
    ] as const) {
      const parsed = parseHeaders(Buffer.from(text));
      expect(parsed.ok && parsed.warnings).toEqual([{ line, message: 'path "/a" has no header lines under it, so it changes nothing' }]);
    }
  });

  it('reads a block for a full URL: its host, and its path ("/" when it has none), as Cloudflare does', () => {
    const r = rules('https://Example.com\n  A: a\nhttps://example.com/blog\n  C: c\n/blog\n  D: d\nhttp://:sub.example.org/docs/*\n  E: :sub/:splat');
    expect(r.hosts).toBe(true);
    expect(r.rules.map((x) => [x.line, x.source, x.host?.source ?? null, x.pattern.source])).toEqual([
      [1, 'https://Example.com', 'Example.com', '/'],
      [3, 'https://example.com/blog', 'example.com', '/blog'],
      [5, '/blog', null, '/blog'],
      [7, 'http://:sub.example.org/docs/*', ':sub.example.org', '/docs/*'],
    ]);
    expect(rules('/a\n  X: 1').hosts).toBe(false);
  });

  it('warns about a block for a URL with no header lines, naming it as written', () => {
    const parsed = parseHeaders(Buffer.from('https://example.com/a\n/b\n  X: 1'));
    expect(parsed.ok && parsed.warnings).toEqual([{ line: 1, message: 'path "https://example.com/a" has no header lines under it, so it changes nothing' }]);
  });

  it('reads "! Name" as a removal', () => {
    expect(rules('/*.jpg\n  ! Content-Security-Policy').rules[0].remove).toEqual(['content-security-policy']);
  });

  it('keeps colons inside values', () => {
    expect(headersFor(rules('/*\n  Link: <https://cdn.example/a.css>; rel=preload'), 'x').set).toEqual([['Link', '<https://cdn.example/a.css>; rel=preload']]);
  });

  it.each([
    ['X-Frame-Options: DENY', 1, 'is neither a path'],
    ['  X-Frame-Options: DENY\n/a\n  X: y', 1, 'comes before any path'],
    ['ftp://example.com/*\n  X: y', 1, 'a URL of another scheme'],
    ['https://example.com:8443/*\n  X: y', 1, 'path "https://example.com:8443/*": the host has a port'],
    ['https://user@example.com/*\n  X: y', 1, 'the host contains "@"'],
    ['https:///a\n  X: y', 1, 'the host is empty'],
    ['https://a.*.example.com/\n  X: y', 1, 'the host has "*" after its first label'],
    ['https://*.example.com/*\n  X: y', 1, 'has "*" in both its host and its path'],
    ['https://:id.example.com/posts/:id\n  X: y', 1, 'uses the placeholder ":id" in both its host and its path'],
    ['https://example.com//a\n  X: y', 1, 'the path starts with "//"'],
    ['https://example.com?x=1\n  X: y', 1, 'the path contains "?"'],
    ['https://example.com/post-:id\n  X: y', 1, 'whole segment'],
    ['https://example.com/*\n  Set-Cookie: a=b', 2, 'Set-Cookie cannot be set by static files'],
    ['https://example.com/*\n  X-Accel-Redirect: /internal', 2, 'instruction to a proxy'],
    ['https://example.com/*\n  Location: /x', 2, 'Location would redirect outside _redirects'],
    ['/a//b\n  X: y', 1, 'not a path any request could have'],
    ['/post-:id\n  X: y', 1, 'whole segment'],
    ['/a\n  no colon here', 2, 'is not a "Name: value" line'],
    ['/a\n  Bad Name: x', 2, '"Bad Name" is not a valid header name'],
    ['/a\n  : x', 2, 'has no header name'],
    ['/a\n  X-Empty:', 2, 'header X-Empty has no value'],
    ['/a\n  X-Name: café', 2, 'outside printable ASCII'],
    ['/a\n  !', 2, 'has no header name'],
    ['/a\n  ! Vary', 2, 'cannot remove Vary'],
    ['/a\n  Connection: close', 2, 'Connection is a hop-by-hop header'],
    ['/a\n  Keep-Alive: timeout=5', 2, 'hop-by-hop'],
    ['/a\n  Proxy-Authenticate: Basic', 2, 'hop-by-hop'],
    ['/a\n  Proxy-Connection: close', 2, 'hop-by-hop'],
    ['/a\n  TE: trailers', 2, 'hop-by-hop'],
    ['/a\n  Trailer: X', 2, 'hop-by-hop'],
    ['/a\n  Transfer-Encoding: chunked', 2, 'hop-by-hop'],
    ['/a\n  Upgrade: websocket', 2, 'hop-by-hop'],
    ['/a\n  content-length: 0', 2, 'content-length is computed by the server'],
    ['/a\n  Content-Encoding: gzip', 2, 'compressed copy'],
    ['/a\n  Content-Range: bytes 0-1/2', 2, 'range request'],
    ['/a\n  ETag: "x"', 2, 'break revalidation'],
    ['/a\n  Set-Cookie: session=1', 2, 'Set-Cookie cannot be set by static files'],
    ['/a\n  ! Set-Cookie', 2, 'Set-Cookie cannot be set'],
    ['/a\n  ! Content-Length', 2, 'computed by the server'],
    // Headers that act on other systems than the visitor's browser for this one answer (issue #26).
    ['/a\n  X-Accel-Redirect: /internal/secret', 2, 'X-Accel-Redirect is an instruction to a proxy in front of the server'],
    ['/a\n  x-accel-buffering: no', 2, 'x-accel-buffering is an instruction to a proxy'],
    ['/a\n  X-Accel-Limit-Rate: 1', 2, 'instruction to a proxy'],
    ['/a\n  X-Sendfile: /etc/passwd', 2, 'X-Sendfile is an instruction to a proxy'],
    ['/a\n  X-Lighttpd-Send-File: /etc/passwd', 2, 'instruction to a proxy'],
    ['/a\n  X-LiteSpeed-Location: /x', 2, 'instruction to a proxy'],
    ['/a\n  X-Envoy-Immediate-Health-Check-Fail: true', 2, 'instruction to a proxy'],
    ['/a\n  Location: https://evil.example/', 2, 'Location would redirect outside _redirects'],
    ['/a\n  Refresh: 0; url=https://evil.example/', 2, 'Refresh would redirect outside _redirects'],
    ['/a\n  Clear-Site-Data: "cookies"', 2, "every site under the same domain, the gate's cookies included"],
    ['/a\n  Alt-Svc: h2=":8443"', 2, 'Alt-Svc would move'],
    ['/a\n  Cache-Tag: statichost-project-proj_other', 2, 'purging a project'],
    ['/a\n  ! Surrogate-Key', 2, 'purging a project'],
    ['/a\n  Set-Cookie2: a=b', 2, 'cannot be set by static files'],
  ])('refuses %j, naming the line', (text, line, message) => {
    const errors = errorsOf(text);
    expect(errors).toHaveLength(1);
    expect(errors[0].line).toBe(line);
    expect(errors[0].message).toContain(message);
  });

  it('reports every bad line, and not the headers under a refused path', () => {
    expect(errorsOf('/ok\n  X: 1\n/bad//path\n  X: 2\n  Y: 3\n/ok2\n  Connection: close\n  Set-Cookie: a=b').map((e) => e.line)).toEqual([3, 7, 8]);
  });

  it(`allows ${MAX_HEADER_RULES} blocks and refuses one more, once`, () => {
    const block = (i: number) => `/p${i}\n  X-N: ${i}`;
    expect(rules(Array.from({ length: MAX_HEADER_RULES }, (_, i) => block(i)).join('\n')).rules).toHaveLength(MAX_HEADER_RULES);
    const errors = errorsOf(Array.from({ length: MAX_HEADER_RULES + 3 }, (_, i) => block(i)).join('\n'));
    expect(errors).toEqual([{ line: 2 * MAX_HEADER_RULES + 1, message: `is path block number ${MAX_HEADER_RULES + 1}; the limit is ${MAX_HEADER_RULES}` }]);
  });

  describe(`caps the headers one answer can get at ${MAX_HEADER_BYTES} bytes`, () => {
    const header = (n: number, chars = 1900) => `  X-Pad-${n}: ${'v'.repeat(chars)}`;

    it("refuses the issue's probe (100 blocks of 1,900 characters under /*), at the first block", () => {
      const file = Array.from({ length: 100 }, (_, i) => `/*\n${header(i)}`).join('\n');
      const errors = errorsOf(file);
      expect(errors).toHaveLength(1);
      expect(errors[0].line).toBe(1);
      expect(errors[0].message).toMatch(
        /^path "\/\*": this block's headers and those of the blocks that can match the same paths \(lines 3, 5, 7, .* and 89 more\) come to 191\d{3} bytes; one answer can get at most 8192 bytes/,
      );
    });

    it('refuses one block over the limit on its own', () => {
      const file = `/a\n${[1, 2, 3, 4, 5].map((n) => header(n)).join('\n')}`;
      expect(errorsOf(file)).toEqual([
        {
          line: 1,
          message: `path "/a": this block's headers come to ${5 * ('X-Pad-1: '.length + 1900 + 2)} bytes; one answer can get at most 8192 bytes of headers from _headers`,
        },
      ]);
    });

    it('counts plain paths exactly: many pages with their own large headers are fine', () => {
      const file = Array.from({ length: 100 }, (_, i) => `/page-${i}\n${header(i, 1900)}\n${header(i + 1000, 1900)}`).join('\n');
      expect(rules(file).rules).toHaveLength(100);
    });

    it('counts a pattern with every plain path it matches', () => {
      const big = `${header(1, 1800)}\n${header(2, 1800)}\n${header(3, 1800)}`;
      expect(errorsOf(`/blog/*\n${big}\n/blog/post\n${header(4, 1800)}\n${header(5, 1800)}`)[0].line).toBe(1);
      expect(rules(`/blog/*\n${big}\n/docs/post\n${header(4, 1800)}\n${header(5, 1800)}`).rules).toHaveLength(2);
    });

    it('counts blocks for hosts together only when one request could match both (a block without a host matches every host)', () => {
      const two = (a: string, b: string) => `${a}\n${header(1, 1800)}\n${header(2, 1800)}\n${header(3, 1800)}\n${b}\n${header(4, 1800)}\n${header(5, 1800)}`;
      expect(rules(two('https://a.example.com/*', 'https://b.example.com/*')).rules).toHaveLength(2);
      expect(rules(two('https://:x.example.com/*', 'https://example.org/*')).rules).toHaveLength(2);
      expect(rules(two('https://a.example.com/blog/*', 'https://a.example.com/docs/*')).rules).toHaveLength(2);
      expect(errorsOf(two('https://a.example.com/*', 'https://A.example.com/docs'))).toHaveLength(1);
      expect(errorsOf(two('https://*.example.com/', 'https://a.example.com/'))).toHaveLength(1);
      expect(errorsOf(two('https://a.example.com/*', '/docs'))).toHaveLength(1);
      const refused = errorsOf(two('/*', 'https://a.example.com/*'));
      expect(refused).toHaveLength(1);
      expect(refused[0].message).toMatch(/^path "\/\*": this block's headers and those of the blocks that can match the same paths \(lines 5\)/);
    });

    it('counts patterns together only when their literal prefixes and suffixes allow a common path', () => {
      const two = (a: string, b: string) => `${a}\n${header(1, 1800)}\n${header(2, 1800)}\n${header(3, 1800)}\n${b}\n${header(4, 1800)}\n${header(5, 1800)}`;
      expect(rules(two('/blog/*', '/docs/*')).rules).toHaveLength(2);
      expect(rules(two('/*.jpg', '/*.html')).rules).toHaveLength(2);
      expect(rules(two('/posts/:id/edit', '/posts/:id/raw')).rules).toHaveLength(2);
      expect(errorsOf(two('/blog/*', '/*.html'))).toHaveLength(1);
      expect(errorsOf(two('/*', '/docs/:page'))).toHaveLength(1);
      expect(errorsOf(two('/a/*', '/a/b/*'))).toHaveLength(1);
      // Matching ignores case and a trailing "/" (Netlify's), and so does the bound.
      expect(errorsOf(two('/Docs/*', '/docs'))).toHaveLength(1);
      expect(errorsOf(two('/about/', '/ABOUT'))).toHaveLength(1);
      expect(errorsOf(two('/blog/*', '/BLOG/:post/'))).toHaveLength(1);
      expect(errorsOf(two('/*.JPG', '/photos/*.jpg'))).toHaveLength(1);
      // A trailing "/" drops out of a suffix: "/posts/:id/" is taken to overlap "/posts/:id/raw" (an upper bound).
      expect(errorsOf(two('/posts/:id/', '/posts/:id/raw'))).toHaveLength(1);
    });
  });

  it('refuses a line over 2,000 characters, and a file that is not UTF-8', () => {
    expect(errorsOf(`/a\n  X: ${'v'.repeat(2000)}`)).toEqual([{ line: 2, message: 'line is 2005 characters long; the limit is 2000' }]);
    expect(errorsOf(Buffer.concat([Buffer.from('/a\n  X: '), Buffer.from([0xff])]))).toEqual([
      { line: 2, message: '_headers is not valid UTF-8 (save it as UTF-8)' },
    ]);
  });
});

describe('parseHeaders of a live deployment (served: true)', () => {
  const served = (text: string) => parseHeaders(new TextEncoder().encode(text), { served: true });

  it('leaves out only the lines of headers refused since the deployment was made, and keeps the rest', () => {
    const file = `/*\n  Content-Security-Policy: default-src 'self'\n  X-Accel-Redirect: /internal\n  X-Frame-Options: DENY\n/logout\n  Clear-Site-Data: "cookies"\n  ! Location\n`;
    expect(errorsOf(file).map((e) => e.line)).toEqual([3, 6, 7]); // a deploy refuses each line
    const parsed = served(file);
    expect(parsed.ok && parsed.rules.rules.map((r) => [r.pattern.source, r.set.map((h) => h.name), r.remove])).toEqual([
      ['/*', ['Content-Security-Policy', 'X-Frame-Options'], []],
      ['/logout', [], []],
    ]);
  });

  it('does not refuse the file for the 8 KB bound (headersFor keeps it per answer)', () => {
    const file = Array.from({ length: 10 }, (_, i) => `/*\n  X-Pad-${i}: ${'v'.repeat(1900)}`).join('\n');
    expect(errorsOf(file)).toHaveLength(1);
    expect(served(file).ok).toBe(true);
  });

  it('still reports what was never valid', () => {
    expect(served('/*\n  Bad Name: x\n').ok).toBe(false);
  });
});

describe('headersFor', () => {
  it('inherits every matching block, joining repeated headers with ", " (Cloudflare\'s table)', () => {
    const r = rules(CLOUDFLARE_EXAMPLE);
    expect(headersFor(r, 'secure/page').set).toEqual([
      ['X-Frame-Options', 'DENY'],
      ['X-Content-Type-Options', 'nosniff'],
      ['Referrer-Policy', 'no-referrer'],
      ['X-Robots-Tag', 'noindex'],
    ]);
    expect(headersFor(r, 'static/styles.css').set).toEqual([
      ['Access-Control-Allow-Origin', '*'],
      ['X-Robots-Tag', 'nosnippet, noindex'],
    ]);
    expect(headersFor(r, 'home').set).toEqual([['X-Robots-Tag', 'noindex']]);
  });

  it('removes a header set by an earlier block, and lets a later block set it again', () => {
    const r = rules(
      "/*\n  Content-Security-Policy: default-src 'self'\n/*.jpg\n  ! Content-Security-Policy\n/special.jpg\n  content-security-policy: img-src *",
    );
    expect(headersFor(r, 'a.html')).toEqual({ set: [['Content-Security-Policy', "default-src 'self'"]], remove: [] });
    expect(headersFor(r, 'a.jpg')).toEqual({ set: [], remove: ['content-security-policy'] });
    expect(headersFor(r, 'special.jpg')).toEqual({ set: [['content-security-policy', 'img-src *']], remove: [] });
  });

  it('joins the same header twice in one block', () => {
    expect(headersFor(rules('/*\n  Link: </a.css>; rel=preload\n  link: </b.js>; rel=preload'), '').set).toEqual([
      ['Link', '</a.css>; rel=preload, </b.js>; rel=preload'],
    ]);
  });

  it('substitutes captures into values, percent-encoded', () => {
    const r = rules('/movies/:title\n  X-Movie-Name: You are watching ":title"\n/files/*\n  Link: </:splat>; rel=canonical');
    expect(headersFor(r, 'movies/caf\u00e9 "x"').set).toEqual([['X-Movie-Name', 'You are watching "caf%C3%A9%20%22x%22"']]);
    expect(headersFor(r, 'files/a/b').set).toEqual([['Link', '</a/b>; rel=canonical']]);
  });

  it('leaves out a header that a long capture would carry past the byte limit, and only that one', () => {
    const r = rules(`/*\n  X-Before: 1\n  X-Echo: ${':splat'.repeat(300)}\n  X-After: 2`);
    const long = headersFor(r, 'a'.repeat(100));
    expect(long.set).toEqual([
      ['X-Before', '1'],
      ['X-After', '2'],
    ]);
    const short = headersFor(r, 'ab');
    expect(short.set.find(([n]) => n === 'X-Echo')?.[1]).toBe('ab'.repeat(300));
  });

  it("matches paths as Netlify does: case-insensitive, a trailing '/' optional, '/dir/*' taking '/dir' too", () => {
    const r = rules('/About\n  X-A: 1\n/docs/\n  X-D: 1\n/blog/*\n  X-B: :splat\n/Posts/:id\n  X-P: :id\n/img/*.PNG\n  X-I: 1');
    const names = (path: string) => headersFor(r, path).set.map(([name, value]) => `${name}=${value}`);
    expect(names('about')).toEqual(['X-A=1']);
    expect(names('about/')).toEqual(['X-A=1']);
    expect(names('ABOUT')).toEqual(['X-A=1']);
    expect(names('docs')).toEqual(['X-D=1']);
    expect(names('docs/')).toEqual(['X-D=1']);
    expect(names('docs/x')).toEqual([]);
    expect(names('blog')).toEqual(['X-B=']);
    expect(names('blog/')).toEqual(['X-B=']);
    expect(names('Blog/A/b')).toEqual(['X-B=A/b']);
    expect(names('blogger')).toEqual([]);
    expect(names('posts/Hello')).toEqual(['X-P=Hello']);
    expect(names('POSTS/hello/')).toEqual(['X-P=hello']);
    expect(names('posts/hello/more')).toEqual([]);
    expect(names('img/a/b.png')).toEqual(['X-I=1']);
    expect(names('img/a.pngx')).toEqual([]);
  });

  it('matches a non-ASCII path whatever its case, decoded once', () => {
    const r = rules('/%C3%89t%C3%A9/*\n  X-E: 1');
    expect(headersFor(r, 'été/a').set).toEqual([['X-E', '1']]);
    expect(headersFor(r, 'ÉTÉ').set).toEqual([['X-E', '1']]);
  });

  describe('blocks for a host', () => {
    const r = rules(
      [
        '/*\n  X-All: 1',
        'https://docs.example.com/*\n  X-Docs: 1',
        'https://:tenant.example.com/app/:page\n  X-Tenant: :tenant/:page',
        'https://*.example.org/\n  X-Org: :splat',
        'http://example.net/about\n  X-Net: 1\n  ! X-All',
      ].join('\n'),
    );
    const names = (path: string, host: string) => headersFor(r, path, host).set.map(([name, value]) => `${name}=${value}`);

    it('apply only to requests for their host, the scheme not compared', () => {
      expect(names('guide', 'docs.example.com')).toEqual(['X-All=1', 'X-Docs=1']);
      expect(names('guide', 'www.example.com')).toEqual(['X-All=1']);
      expect(headersFor(r, 'about', 'example.net')).toEqual({ set: [['X-Net', '1']], remove: ['x-all'] });
      expect(names('about', 'www.example.net')).toEqual(['X-All=1']);
    });

    it('match their path as path blocks do (any case, a trailing "/" optional)', () => {
      expect(names('ABOUT/', 'example.net')).toEqual(['X-Net=1']);
      expect(names('app/Home/', 'acme.example.com')).toEqual(['X-All=1', 'X-Tenant=acme/Home']);
      expect(names('app/home/more', 'acme.example.com')).toEqual(['X-All=1']);
    });

    it("fill the host's placeholders and splat into values", () => {
      expect(names('', 'a.b.example.org')).toEqual(['X-All=1', 'X-Org=a.b']);
      expect(names('x', 'a.b.example.org')).toEqual(['X-All=1']);
    });

    it('are left out for a request without a host (no site is served without one)', () => {
      expect(names('guide', '')).toEqual(['X-All=1']);
    });
  });

  it('returns nothing for a path no block matches', () => {
    expect(headersFor(rules(CLOUDFLARE_EXAMPLE), 'secure/pages')).toEqual({ set: [['X-Robots-Tag', 'noindex']], remove: [] });
    expect(headersFor(rules('/a\n  X: 1'), 'b')).toEqual({ set: [], remove: [] });
  });
});

describe('applyHeaderChanges', () => {
  const base = ['ETag', '"x"', 'Cache-Control', 'public, max-age=0, must-revalidate', 'X-Content-Type-Options', 'nosniff', 'Vary', 'Accept-Encoding'];

  it('replaces, removes and adds, and merges Vary instead of replacing it', () => {
    const out = applyHeaderChanges(base, {
      set: [
        ['cache-control', 'public, max-age=600'],
        ['Vary', 'Accept-Language, accept-encoding'],
        ['X-Frame-Options', 'DENY'],
      ],
      remove: ['x-content-type-options'],
    });
    expect(out).toEqual(['ETag', '"x"', 'cache-control', 'public, max-age=600', 'X-Frame-Options', 'DENY', 'Vary', 'Accept-Encoding, Accept-Language']);
  });

  it('leaves the headers alone without changes', () => {
    expect(applyHeaderChanges(base, { set: [], remove: [] })).toEqual(base);
  });

  it('mergeVary keeps each token once and lets "*" absorb the rest', () => {
    expect(mergeVary('Cookie', 'accept-encoding, Cookie', 'X')).toBe('Cookie, accept-encoding, X');
    expect(mergeVary('Cookie', '*')).toBe('*');
  });
});

describe('gated sites and CORS with credentials', () => {
  const file = '/*\n  Access-Control-Allow-Origin: https://other.sites.example\n  access-control-allow-credentials: true\n  X-Frame-Options: DENY';

  it('gatedHeaderProblems names the line that sets Access-Control-Allow-Credentials', () => {
    expect(gatedHeaderProblems(rules(file))).toEqual([
      {
        line: 3,
        message: "access-control-allow-credentials cannot be set on a gated site: it would let other origins read gated pages with the visitor's access cookie",
      },
    ]);
    expect(gatedHeaderProblems(rules('/*\n  Access-Control-Allow-Origin: *'))).toEqual([]);
  });

  it('gatedHeaderProblems finds it in a block for a host too', () => {
    expect(gatedHeaderProblems(rules('https://:sub.example.com/*\n  Access-Control-Allow-Credentials: true')).map((p) => p.line)).toEqual([2]);
  });

  it('gatedHeaderChanges drops it when serving (a gate switched on after the deploy)', () => {
    expect(gatedHeaderChanges(headersFor(rules(file), 'x')).set).toEqual([
      ['Access-Control-Allow-Origin', 'https://other.sites.example'],
      ['X-Frame-Options', 'DENY'],
    ]);
  });
});

describe('gatedHeaderChanges', () => {
  it('keeps private, no-store and Vary: Cookie on a gated answer whatever the file says', () => {
    const r = rules(
      '/*\n  Cache-Control: public, max-age=31536000\n  CDN-Cache-Control: max-age=600\n  Surrogate-Control: max-age=600\n  Expires: Thu, 01 Jan 2099 00:00:00 GMT\n  Vary: Accept-Language\n  X-Frame-Options: DENY\n/a\n  ! Cache-Control\n  ! Pragma',
    );
    const gatedBase = ['Cache-Control', 'private, no-store', 'Vary', 'Cookie'];
    // `/a` also removes Cache-Control and Pragma: the gated answer keeps its own all the same.
    for (const path of ['page', 'a']) {
      expect(applyHeaderChanges(gatedBase, gatedHeaderChanges(headersFor(r, path)))).toEqual([
        'Cache-Control',
        'private, no-store',
        'X-Frame-Options',
        'DENY',
        'Vary',
        'Cookie, Accept-Language',
      ]);
    }
  });
});

describe('canMatchTogether (the 8 KB bound) under Netlify matching', () => {
  const segment = fc.constantFrom('a', 'A', 'b', 'ab', 'x.jpg', 'X.JPG', 'é', 'É');
  const patternPart = fc.oneof(segment, fc.constant(':p'), fc.constant('*'), fc.constant('*.jpg'));
  const pattern = fc
    .tuple(fc.array(patternPart, { minLength: 0, maxLength: 4 }), fc.boolean())
    .map(([parts, slash]) => `/${parts.join('/')}${slash && parts.length ? '/' : ''}`)
    .map((raw) => compileHeaderPathPattern(raw))
    .filter((p): p is HeaderPathPattern => !('error' in p));
  const path = fc.tuple(fc.array(segment, { maxLength: 5 }), fc.boolean()).map(([segs, slash]) => segs.join('/') + (slash && segs.length ? '/' : ''));

  it('never says "no" for two patterns that match one same path', () => {
    fc.assert(
      fc.property(pattern, pattern, path, (a, b, p) => {
        if (matchHeaderPathPattern(a, p) && matchHeaderPathPattern(b, p)) expect(canMatchTogether(a, b)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('previewHeaderChanges', () => {
  it('leaves X-Robots-Tag to the preview address (set or removed), and the rest as written', () => {
    const changes = headersFor(rules('/*\n  X-Robots-Tag: all\n  X-Frame-Options: DENY\n/a\n  ! X-Robots-Tag'), 'a');
    expect(previewHeaderChanges(changes)).toEqual({ set: [['X-Frame-Options', 'DENY']], remove: [] });
  });
  it('is the same object when nothing touches X-Robots-Tag (the answer memo keys on it)', () => {
    const changes = headersFor(rules('/*\n  X-Frame-Options: DENY'), 'a');
    expect(previewHeaderChanges(changes)).toBe(changes);
  });
});
