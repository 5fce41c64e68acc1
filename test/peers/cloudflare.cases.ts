import { page, type PeerRequest, type PeerSite } from './harness';

/**
 * Cloudflare's expectations (cloudflare/workers-sdk, test/fixtures/peers/README.md): the
 * `_redirects` and `_headers` parse tests (packages/workers-shared/utils/tests) and the
 * asset server's handler and rules-engine tests (packages/pages-shared/__tests__/asset-server),
 * each input written as the rules files a Pages project would deploy, each expectation as
 * the request that shows it. Cloudflare deploys a file with bad lines (they are skipped
 * and listed as warnings), so its "invalid" tests are deploys that Cloudflare accepts.
 */
const PARSE = 'cloudflare/workers-sdk packages/workers-shared/utils/tests';
const HANDLER = 'cloudflare/workers-sdk packages/pages-shared/__tests__/asset-server/handler.test.ts';
const RULES_ENGINE = 'cloudflare/workers-sdk packages/pages-shared/__tests__/asset-server/rulesEngine.test.ts';

const redirect = (id: string, path: string, status: number, location: string): PeerRequest => ({ id, path, expect: { status, location } });
const notFound = (id: string, path: string): PeerRequest => ({ id, path, expect: { status: 404, body: page('404.html') } });
const headerIs = (id: string, path: string, headers: Record<string, string | RegExp | null>): PeerRequest => ({ id, path, expect: { headers } });

let n = 0;
/** A site from a parse test: `test` names it in the source file. */
function parsed(file: string, test: string, site: Omit<PeerSite, 'id' | 'source' | 'deploy'> & { note?: string }): PeerSite {
  n += 1;
  const { note, ...rest } = site;
  return {
    deploy: 'accepted',
    ...rest,
    id: `cloudflare/${file.replace(/\.test\.ts$/, '')}/${String(n).padStart(2, '0')}`,
    source: `${PARSE}/${file} "${test}"${note ? ` (${note})` : ''}`,
  };
}

const REDIRECTS_VALID = 'parseRedirects.valid.test.ts';
const REDIRECTS_INVALID = 'parseRedirects.invalid.test.ts';
const HEADERS_VALID = 'parseHeaders.valid.test.ts';
const HEADERS_INVALID = 'parseHeaders.invalid.test.ts';

const redirectParse: PeerSite[] = [
  parsed(REDIRECTS_VALID, 'should handle a single rule', { redirects: '/a /b 301', requests: [redirect('rule', '/a', 301, '/b')] }),
  parsed(REDIRECTS_VALID, 'should ignore blank lines', { redirects: '\n/a /b 301\n', requests: [redirect('rule', '/a', 301, '/b')] }),
  parsed(REDIRECTS_VALID, 'should trim whitespace', { redirects: '\n  /a /b 301\n', requests: [redirect('rule', '/a', 301, '/b')] }),
  parsed(REDIRECTS_VALID, 'should ignore comments', {
    redirects: '\n  # This is a comment\n  /a /b 301\n  # And one here too.\n',
    requests: [redirect('rule', '/a', 301, '/b')],
  }),
  parsed(REDIRECTS_VALID, 'should handle a single comment-only line', { redirects: '# This is just a comment', requests: [notFound('no-rule', '/a')] }),
  parsed(REDIRECTS_VALID, 'should handle an indented comment-only line', { redirects: '  # indented comment' }),
  parsed(REDIRECTS_VALID, 'should handle multiple consecutive comment lines', {
    redirects: '\n# First comment\n# Second comment\n  # Indented comment\n/a /b 301\n# Comment after rule\n# Another comment\n/c /d\n# Final comment\n',
    requests: [redirect('first', '/a', 301, '/b'), redirect('default-302', '/c', 302, '/d')],
  }),
  parsed(REDIRECTS_VALID, 'should handle a file with only comments', {
    redirects: '\n# This file has no redirects\n# Just comments\n  # Some indented\n# And more comments\n',
  }),
  parsed(REDIRECTS_VALID, 'should default to 302', {
    redirects: '\n  /a /b 302\n  /c /d\n',
    requests: [redirect('explicit', '/a', 302, '/b'), redirect('default', '/c', 302, '/d')],
  }),
  parsed(REDIRECTS_VALID, 'should preserve querystrings on to', {
    redirects: '\n  /a /b?query=string 302\n  /c?this=rejected /d 301\n  /ext https://some.domain:1234/route?q=string#anchor\n',
    requests: [
      redirect('query-kept', '/a', 302, '/b?query=string'),
      redirect('source-query-dropped', '/c', 301, '/d'),
      redirect('absolute', '/ext', 302, 'https://some.domain:1234/route?q=string#anchor'),
    ],
  }),
  parsed(REDIRECTS_VALID, 'should preserve fragments', { redirects: '\n  /a /b#blah 302\n', requests: [redirect('rule', '/a', 302, '/b#blah')] }),
  parsed(REDIRECTS_VALID, 'should preserve fragments which contain a hash sign', {
    redirects: '\n  /a /b##blah-1 302\n',
    requests: [redirect('rule', '/a', 302, '/b##blah-1')],
  }),
  parsed(REDIRECTS_VALID, 'should preserve fragments which contain a hash sign and are full URLs', {
    redirects: '\n  /a https://example.com/b##blah-1 302\n',
    requests: [redirect('rule', '/a', 302, 'https://example.com/b##blah-1')],
  }),
  parsed(REDIRECTS_VALID, 'should accept 200 (proxying) redirects', {
    redirects: '\n\t/a /b 200\n',
    files: ['b.html'],
    requests: [{ id: 'rewrite', path: '/a', expect: { status: 200, location: null, body: page('b.html') } }],
  }),
  parsed(REDIRECTS_VALID, 'should accept absolute URLs that end with index.html', {
    redirects: '\n\t/foo https://bar.com/index.html 302\n',
    requests: [redirect('rule', '/foo', 302, 'https://bar.com/index.html')],
  }),
  parsed(REDIRECTS_VALID, 'should accept going to absolute URLs with ports', {
    redirects: '\n\t/foo https://bar.com:123/index.html 302\n\t/cat https://cat.com:12345 302\n\t/dog https://dog.com:12345\n\t',
    requests: [
      redirect('path', '/foo', 302, 'https://bar.com:123/index.html'),
      redirect('no-path', '/cat', 302, 'https://cat.com:12345/'),
      redirect('default-status', '/dog', 302, 'https://dog.com:12345/'),
    ],
  }),
  parsed(REDIRECTS_VALID, "should accept relative URLs that don't point to .html files", {
    redirects: '\n\t/* /foo 200\n',
    files: ['foo.html'],
    requests: [{ id: 'any-path', path: '/anything/here', expect: { status: 200, body: page('foo.html') } }],
  }),
  parsed(REDIRECTS_VALID, 'should support inline comments', { redirects: '/a /b 301 # redirect a to b', requests: [redirect('rule', '/a', 301, '/b')] }),
  parsed(REDIRECTS_VALID, 'should support inline comments without status code', {
    redirects: '/a /b # redirect with default status',
    requests: [redirect('rule', '/a', 302, '/b')],
  }),
  parsed(REDIRECTS_VALID, 'should support inline comments after URL fragments', {
    redirects: '/a /b#section 301 # redirect to section',
    requests: [redirect('rule', '/a', 301, '/b#section')],
  }),
  parsed(REDIRECTS_VALID, 'should support inline comments without space after hash', {
    redirects: '/a /b 301 #no space comment',
    requests: [redirect('rule', '/a', 301, '/b')],
  }),
  parsed(REDIRECTS_VALID, 'should support multiple rules with inline comments', {
    redirects: '\n    /a /b 301 # first rule\n    /c /d # second rule with default status\n    # full line comment\n    /e /f 307 # third rule\n  ',
    requests: [redirect('first', '/a', 301, '/b'), redirect('second', '/c', 302, '/d'), redirect('third', '/e', 307, '/f')],
  }),
  parsed(REDIRECTS_VALID, 'should support inline comments with absolute URLs containing fragments', {
    redirects: '/a https://x.com/b#c # comment',
    requests: [redirect('rule', '/a', 302, 'https://x.com/b#c')],
  }),
  parsed(REDIRECTS_VALID, 'should support empty inline comments (just hash)', { redirects: '/a /b #', requests: [redirect('rule', '/a', 302, '/b')] }),
  parsed(REDIRECTS_VALID, 'should support inline comments with multiple hashes in URL fragment', {
    redirects: '/a /b##anchor # comment',
    requests: [redirect('rule', '/a', 302, '/b##anchor')],
  }),

  parsed(REDIRECTS_INVALID, 'should reject malformed lines', { redirects: '\n    # Single token\n    /c\n    # Four tokens\n    /d /e 302 !important\n  ' }),
  parsed(REDIRECTS_INVALID, 'should reject invalid status codes', {
    redirects: '\n    # Valid token sails through\n    /a /b 301\n    # 418 NOT OK\n    /c /d 418\n  ',
    requests: [redirect('valid-line', '/a', 301, '/b'), notFound('skipped-line', '/c')],
  }),
  parsed(REDIRECTS_INVALID, "should reject duplicate 'from' paths", {
    redirects: "\n    # Valid entry\n    /a /b\n    # Nonsensical but permitted (for now)\n    /b /a\n    # Duplicate 'from'\n    /a /c\n  ",
    requests: [redirect('first-wins', '/a', 302, '/b'), redirect('back', '/b', 302, '/a')],
  }),
  parsed(REDIRECTS_INVALID, 'should reject lines longer than 2000 chars', {
    redirects: `\n    # Valid entry\n    /a /b\n    # Jumbo comment line OK, ignored as normal\n    ${'#'.repeat(2001)}\n    # Huge path names rejected\n    /${'a'.repeat(2000)} /${'b'.repeat(2000)} 301\n  `,
    requests: [redirect('valid-line', '/a', 302, '/b')],
  }),
  parsed(REDIRECTS_INVALID, 'should reject any dynamic rules after the first 100', {
    redirects: Array.from({ length: 150 }, (_, i) => `/a/${i}/* /b/${i}/:splat`).join('\n'),
    requests: [redirect('first', '/a/0/x', 302, '/b/0/x'), redirect('hundredth', '/a/99/x', 302, '/b/99/x'), notFound('past-the-limit', '/a/120/x')],
  }),
  parsed(REDIRECTS_INVALID, 'should reject any static rules after the first 2000', {
    redirects: Array.from({ length: 2050 }, (_, i) => `/a/${i} /b/${i}`).join('\n'),
    requests: [redirect('first', '/a/0', 302, '/b/0'), redirect('last-kept', '/a/1999', 302, '/b/1999'), notFound('past-the-limit', '/a/2010')],
  }),
  parsed(REDIRECTS_INVALID, 'should reject malformed URLs', {
    note: 'without two of its lines, "/://so;`me …" and "yeah.com …"',
    redirects:
      "\n  # Spaces rejected on token length\n  /some page /somewhere else\n  # OK with URL escaped encoding\n  /some%20page /somewhere%20else\n  # Absolute URLs aren't OK for 'from', but are fine for 'to'\n  https://yeah.com https://nah.com\n  /nah https://yeah.com\n",
    requests: [redirect('escaped', '/some%20page', 302, '/somewhere%20else'), redirect('absolute-to', '/nah', 302, 'https://yeah.com/')],
  }),
  parsed(REDIRECTS_INVALID, 'should reject non-relative URLs for proxying (200) redirects', {
    // No network here: once proxies are served, a request must not wait on a DNS lookup.
    note: "https://example.com is the test's origin server",
    redirects: '\n\t/a {{ORIGIN}}/b 200\n',
    requests: [notFound('skipped-line', '/a')],
  }),
  parsed(REDIRECTS_INVALID, 'should reject wildcard patterns to index', {
    redirects: '\n/* /index.html 200\n/* /index 200\n/ /index.html\n/ /index\n',
    files: ['index.html'],
    requests: [notFound('skipped-lines', '/unknown'), { id: 'index', path: '/', expect: { status: 200, body: page('index.html') } }],
  }),
];

const headerParse: PeerSite[] = [
  parsed(HEADERS_VALID, 'should handle a single rule', { headers: '/a\n  Name: Value', requests: [headerIs('value', '/a', { name: 'Value' })] }),
  parsed(HEADERS_VALID, 'should handle headers with exclamation marks', {
    headers: '/a\n  !Name: Value',
    requests: [headerIs('value', '/a', { '!name': 'Value' })],
  }),
  parsed(HEADERS_VALID, 'should ignore blank lines', { headers: '\n/a\n\nName: Value\n\n', requests: [headerIs('value', '/a', { name: 'Value' })] }),
  parsed(HEADERS_VALID, 'should trim whitespace', {
    headers: '\n                /a\n    Name         :           Value\n',
    requests: [headerIs('value', '/a', { name: 'Value' })],
  }),
  parsed(HEADERS_VALID, 'should ignore comments', {
    headers: '\n  # This is a comment\n  /a\n  # And one here too.\n  Name: Value\n',
    requests: [headerIs('value', '/a', { name: 'Value' })],
  }),
  parsed(HEADERS_VALID, 'should combine headers together', {
    headers: '\n  /a\n    Set-Cookie: test=cookie; expires=never\n    Set-Cookie: another=cookie; magic!\n\n  /b\n    A: ABBA\n    B: BABA\n',
    requests: [
      headerIs('joined', '/a', { 'set-cookie': /test=cookie; expires=never.*another=cookie; magic!/ }),
      headerIs('other-block', '/b', { a: 'ABBA', b: 'BABA' }),
    ],
  }),
  parsed(HEADERS_VALID, 'should support setting hosts', {
    note: "its last block for the site's host instead of a pattern host",
    headers:
      '\n  https://example.com\n    a: a\n  https://example.com/\n    b: b\n  https://example.com/blog\n    c: c\n  /blog\n    d:d\n  https://{{HOST}}/blog\n    e:e\n',
    requests: [headerIs('own-host', '/blog', { d: 'd', e: 'e', c: null })],
  }),
  parsed(HEADERS_VALID, 'should add unset headers', {
    headers: '/a\n  Name: Value\n  ! Place',
    requests: [headerIs('value', '/a', { name: 'Value' })],
  }),

  parsed(HEADERS_INVALID, 'should reject malformed initial lines', {
    headers: '\n    # A single token before a path\n    c\n    # A header before a path\n    Access-Control-Allow-Origin: *\n  ',
    requests: [headerIs('skipped-lines', '/a', { 'access-control-allow-origin': null })],
  }),
  parsed(HEADERS_INVALID, 'should reject invalid headers', {
    headers:
      "\n    # Valid header sails through\n    /a\n      Name:       Value\n    #\n    /b\n      I'm invalid!\n      !x-content-type\n      But: I'm okay!\n      ! Content-Type: application/json\n  ",
    requests: [headerIs('valid-block', '/a', { name: 'Value' }), headerIs('valid-line', '/b', { but: "I'm okay!" })],
  }),
  parsed(HEADERS_INVALID, 'should reject lines longer than 2000 chars', {
    headers: `\n    # Valid entry\n    /a\n      Name: Value\n    # Jumbo comment line OK, ignored as normal\n    ${'#'.repeat(2010)}\n    # Huge path names rejected\n    /b\n      Name: Value\n      ${'a'.repeat(1000)}: ${'b'.repeat(1005)}\n  `,
    requests: [headerIs('valid-block', '/a', { name: 'Value' }), headerIs('long-line-skipped', '/b', { name: 'Value' })],
  }),
  parsed(HEADERS_INVALID, 'should reject any rules after the first 100', {
    headers: Array.from({ length: 150 }, (_, i) => `/a/${i}\nx-index: ${i}`).join('\n'),
    requests: [headerIs('first', '/a/0', { 'x-index': '0' }), headerIs('past-the-limit', '/a/140', { 'x-index': null })],
  }),
  parsed(HEADERS_INVALID, 'should reject malformed URLs', {
    note: 'a selection of its blocks',
    headers:
      '\n  # OK with URL escaped encoding\n  /some%20page\n    valid: yup\n  # Absolute URLs with a non-https protocol should be rejected\n  http://nah.com/blog\n    invalid: things\n  /yeah\n    valid: yup\n  /yeah.com\n    valid: yup\n  test:\n',
    requests: [
      headerIs('escaped', '/some%20page', { valid: 'yup' }),
      headerIs('plain', '/yeah', { valid: 'yup' }),
      headerIs('dotted', '/yeah.com', { valid: 'yup' }),
    ],
  }),
];

const rulesEngine: PeerSite[] = [
  {
    id: 'cloudflare/rulesEngine/simple',
    source: `${RULES_ENGINE} "it should match simple pathname hosts"`,
    headers: '/test\n  X-Rule: 1\n/some%20page\n  X-Rule-Two: 2\n',
    deploy: 'accepted',
    requests: [headerIs('plain', '/test', { 'x-rule': '1' }), headerIs('encoded', '/some%20page', { 'x-rule-two': '2' })],
  },
  {
    id: 'cloudflare/rulesEngine/cross-host',
    source: `${RULES_ENGINE} "it should match cross-host requests" (custom.domain is the site's host)`,
    headers: '/test\n  X-One: 1\n/anotherpage\n  X-Two: 2\nhttps://{{HOST}}/test\n  X-Three: 3\nhttps://another.domain/test\n  X-Four: 4\n',
    deploy: 'accepted',
    requests: [headerIs('path-and-host', '/test', { 'x-one': '1', 'x-three': '3', 'x-four': null })],
  },
  {
    id: 'cloudflare/rulesEngine/splats',
    source: `${RULES_ENGINE} "it should support splats and placeholders" (values as header values)`,
    headers: '/foo/test/*\n  X-One: 1/:splat\n/foo/*\n  X-Two: 2/:splat\n/blog/:code/:name\n  X-Three: 3/:name/:code\n/blog/*\n  X-Four: 4/:splat\n',
    deploy: 'accepted',
    requests: [
      headerIs('both-splats', '/foo/test/yes', { 'x-one': '1/yes', 'x-two': '2/test/yes' }),
      headerIs('empty-splat', '/foo/test/', { 'x-one': '1/', 'x-two': '2/test/' }),
      headerIs('no-trailing-slash', '/foo/test', { 'x-one': null, 'x-two': '2/test' }),
      headerIs('outer-only', '/foo/', { 'x-two': '2/' }),
      headerIs('no-match', '/foo', { 'x-two': null }),
      headerIs('placeholders', '/blog/123/tricycle', { 'x-three': '3/tricycle/123', 'x-four': '4/123/tricycle' }),
    ],
  },
  {
    id: 'cloudflare/rulesEngine/replacer',
    source: `${RULES_ENGINE} "should replace all instances of placeholders"`,
    headers: '/assets/:value\n  Link: </assets/:value/main.js>; rel=preload; as=script, </assets/:value/lang.js>; rel=preload; as=script\n',
    deploy: 'accepted',
    requests: [
      headerIs('every-instance', '/assets/js', { link: '</assets/js/main.js>; rel=preload; as=script, </assets/js/lang.js>; rel=preload; as=script' }),
    ],
  },
];

let h = 0;
function handler(test: string, site: Omit<PeerSite, 'id' | 'source' | 'deploy'>): PeerSite {
  h += 1;
  return { deploy: 'accepted', ...site, id: `cloudflare/handler/${String(h).padStart(2, '0')}`, source: `${HANDLER} "${test}"` };
}

const handlerSites: PeerSite[] = [
  handler('Returns appropriate status codes', {
    redirects: '/301 /home 301\n/302 /home 302\n/303 /home 303\n/307 /home 307\n/308 /home 308\n/500 /home 302\n/200 /proxied-file 200\n',
    files: ['proxied-file.html'],
    requests: [
      ...[301, 302, 303, 307, 308].map((s) => redirect(String(s), `/${s}`, s, '/home')),
      redirect('500-as-302', '/500', 302, '/home'),
      { id: '200-rewrite', path: '/200', expect: { status: 200, location: null, body: page('proxied-file.html') } },
    ],
  }),
  handler("Won't redirect to protocol-less double-slashed URLs", {
    files: ['index.html', 'page.html'],
    requests: [
      redirect('encoded-slash', '/%2Fwww.example.com/index/', 308, '/www.example.com/'),
      redirect('encoded-backslash', '/%5Cwww.example.com/index/', 308, '/www.example.com/'),
      redirect('plain-index', '/foo/index/', 308, '/foo/'),
    ],
  }),
  handler('Match exact pathnames, before any HTML redirection', {
    redirects: '/ /home 301\n/page.html /elsewhere 301\n',
    files: ['index.html', 'page.html'],
    requests: [
      redirect('index-html', '/index.html', 308, '/'),
      redirect('index', '/index', 308, '/'),
      redirect('rule-over-file', '/', 301, '/home'),
      redirect('rule-over-canonical', '/page.html', 301, '/elsewhere'),
      { id: 'pretty-url', path: '/page', expect: { status: 200, body: page('page.html') } },
    ],
  }),
  handler('Match exact pathnames, before any HTML redirection (the protocol-less rule)', {
    redirects: '/protocol-less-test /%2fwww.example.com/ 308\n',
    requests: [redirect('encoded-slash-destination', '/protocol-less-test', 308, '/%2fwww.example.com/')],
  }),
  handler('cross-host static redirects still are executed with line number precedence', {
    redirects: '/home https://secondhost/ 302\n',
    requests: [redirect('path-rule', '/home', 302, 'https://secondhost/')],
  }),
  handler('cross-host static redirects still are executed with line number precedence (fakehost is the site host)', {
    redirects: 'https://{{HOST}}/home https://firsthost/ 302\n/home https://secondhost/ 302\n',
    requests: [redirect('host-rule-first', '/home', 302, 'https://firsthost/')],
  }),
  handler('it should preserve querystrings unless to rule includes them', {
    redirects: '/ /home 301\n/recent /home?sort=updated_at 301\n',
    files: ['home.html'],
    requests: [
      redirect('passed-on', '/?sort=price', 301, '/home?sort=price'),
      redirect('own-query', '/recent', 301, '/home?sort=updated_at'),
      redirect('own-query-replaces', '/recent?other=query', 301, '/home?sort=updated_at'),
    ],
  }),
  handler('it should perform splat and placeholder replacements', {
    redirects:
      '/home / 301\n/blog/* https://blog.example.com/:splat 301\n/products/:code/:name/* /products?junk=:splat&name=:name&code=:code 301\n/foo /bar 301\n',
    files: ['home.html'],
    requests: [
      redirect('splat', '/blog/a-blog-posting', 301, 'https://blog.example.com/a-blog-posting'),
      redirect('placeholders', '/products/abba_562/tricycle/123abc@~!', 301, '/products?junk=123abc@~!&name=tricycle&code=abba_562'),
      redirect('static-over-file', '/home', 301, '/'),
      redirect('dynamic', '/blog/post', 301, 'https://blog.example.com/post'),
      redirect('static', '/foo', 301, '/bar'),
    ],
  }),
  handler('internal asset error doesn\'t set headers: "404 doesn\'t skip headers"', {
    headers: '/*\n  x-unwanted-header: foo\n',
    redirects: '/here /there 301\n',
    files: ['asset.txt'],
    no404: true,
    requests: [
      { id: '404-has-headers', path: '/404', expect: { status: 404, headers: { 'x-unwanted-header': 'foo' } } },
      { id: '301-has-headers', path: '/here', expect: { status: 301, location: '/there', headers: { 'x-unwanted-header': 'foo' } } },
    ],
  }),
  handler('404 responses from our asset serving should not cache', {
    headers: '/*\n  cache-control: public, max-age=604800\n',
    files: ['asset.txt'],
    no404: true,
    requests: [
      { id: '404-no-store', path: '/404', expect: { status: 404, headers: { 'cache-control': 'no-store' } } },
      { id: '200-keeps-rule', path: '/asset.txt', expect: { status: 200, headers: { 'cache-control': 'public, max-age=604800' } } },
    ],
  }),
  ...(
    [
      ['it should redirect uri-encoded paths', '/some%20page /home 301', '/some%20page', '/home'],
      ['redirects to a query string same-origin', '/bar /?test=abc 301', '/bar', '/?test=abc'],
      ['redirects to a query string cross-origin', '/bar https://foobar.com/?test=abc 301', '/bar', 'https://foobar.com/?test=abc'],
      ['redirects to hash component same-origin', '/bar https://{{HOST}}/##heading-7 301', '/bar', '/##heading-7'],
      ['redirects to hash component cross-origin', '/bar https://foobar.com/##heading-7 301', '/bar', 'https://foobar.com/##heading-7'],
      ['redirects to a query string and hash same-origin', '/bar /?test=abc#def 301', '/bar', '/?test=abc#def'],
      ['redirects to a query string and hash cross-origin', '/bar https://foobar.com/?test=abc#def 301', '/bar', 'https://foobar.com/?test=abc#def'],
      ['redirects to a query string and hash against rfc', '/bar https://foobar.com/#def?test=abc 301', '/bar', 'https://foobar.com/#def?test=abc'],
      [
        'redirects to a hash with an incoming query cross-origin',
        '/bar https://foobar.com/#heading 301',
        '/bar?test=abc',
        'https://foobar.com/?test=abc#heading',
      ],
      ['getResponseFromMatch - same origin paths specified as full URLs', '/foo https://{{HOST}}/bar 301', '/foo', '/bar'],
      ['getResponseFromMatch - different origins', '/foo https://bar.com/bar 302', '/foo', 'https://bar.com/bar'],
    ] as const
  ).map(([test, rule, path, location]) =>
    handler(test, { redirects: `${rule}\n`, requests: [redirect('location', path, Number(/ (\d{3})$/.exec(rule)![1]), location)] }),
  ),
];

export const CLOUDFLARE_SITES: PeerSite[] = [...redirectParse, ...headerParse, ...rulesEngine, ...handlerSites];
