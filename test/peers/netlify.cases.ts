import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { page, type PeerRequest, type PeerSite } from './harness';

/**
 * Netlify's expectations (netlify/build, test/fixtures/peers/README.md): the
 * redirect-parser's and headers-parser's fixture files, each deployed as it is, with what
 * Netlify's parser tests say it makes of them (accepted or refused; each rule's source,
 * destination, status, force) turned into requests as Netlify serves them (docs.netlify.com,
 * "Redirects and rewrites": rules without `!` only when no file answers the path; the
 * query string passed on for 200, 301 and 302; 301 by default).
 */
const FIXTURES = join(__dirname, '../fixtures/peers/netlify');
const redirectsFile = (name: string) => readFileSync(join(FIXTURES, 'redirects_file', name), 'utf8');
const headersFile = (name: string) => readFileSync(join(FIXTURES, 'headers_file', name), 'utf8');

const REDIRECT_PARSER = 'netlify/build packages/redirect-parser/tests';
const HEADERS_PARSER = 'netlify/build packages/headers-parser/tests';

const redirect = (id: string, path: string, status: number, location: string, headers?: Record<string, string>): PeerRequest => ({
  id,
  path,
  headers,
  expect: { status, location },
});
const served = (id: string, path: string, file: string, headers?: Record<string, string>): PeerRequest => ({
  id,
  path,
  headers,
  expect: { status: 200, body: page(file) },
});
const notFound = (id: string, path: string, headers?: Record<string, string>): PeerRequest => ({
  id,
  path,
  headers,
  expect: { status: 404, body: page('404.html') },
});

/** One site per fixture file of the redirect parser (38 files: every one its tests read). */
function redirectFixture(name: string, deploy: 'accepted' | 'refused', requests: PeerRequest[] = [], extra: Partial<PeerSite> = {}): PeerSite {
  return {
    id: `netlify/redirects/${name}`,
    source: `${REDIRECT_PARSER}/fixtures/redirects_file/${name} (line-parser.test.ts)`,
    redirects: redirectsFile(name),
    deploy,
    requests,
    ...extra,
  };
}

/** Generated, not copied (1.6 MB): the same 45,000 lines `/base/some-N /base/another-N`, in order. */
const LARGE_REDIRECTS = Array.from({ length: 45_000 }, (_, i) => `/base/some-${i} /base/another-${i}`).join('\n') + '\n';

const redirectSites: PeerSite[] = [
  redirectFixture('comment_full', 'accepted', [redirect('rule', '/blog/my-post.php', 301, '/blog/my-post')]),
  redirectFixture('comment_inline', 'accepted', [redirect('rule', '/blog/my-post.php', 301, '/blog/my-post')]),
  // Country conditions: the expectations a request without a known country can show (no
  // GeoIP database in this suite): the rule does not apply to it.
  redirectFixture('conditions_country', 'accepted', [notFound('unknown-country', '/')]),
  redirectFixture('conditions_country_case', 'accepted', [notFound('unknown-country', '/old-path')], { files: ['new-path.html'] }),
  redirectFixture('conditions_country_language', 'accepted', [notFound('language-alone-is-not-enough', '/', { 'Accept-Language': 'en' })]),
  redirectFixture(
    'conditions_language_case',
    'accepted',
    [
      served('language-en', '/old-path', 'new-path.html', { 'Accept-Language': 'en' }),
      served('language-en-q', '/old-path', 'new-path.html', { 'Accept-Language': 'fr;q=0.8, en' }),
      notFound('language-fr', '/old-path', { 'Accept-Language': 'fr' }),
      notFound('no-language', '/old-path'),
    ],
    { files: ['new-path.html'] },
  ),
  redirectFixture('conditions_query', 'accepted', [notFound('unknown-country', '/donate?source=web&email=a@example.com'), notFound('no-query', '/donate')]),
  redirectFixture('conditions_role', 'accepted'),
  redirectFixture('conditions_role_case', 'accepted'),
  redirectFixture('conditions_roles', 'accepted'),
  redirectFixture('empty', 'accepted', [notFound('nothing', '/home')]),
  redirectFixture('empty_line', 'accepted', [
    redirect('first', '/blog/my-post.php', 301, '/blog/my-post'),
    redirect('second', '/blog/my-post-two.php', 301, '/blog/my-post-two'),
  ]),
  // A domain-level source applies only on its own host: not on this site's.
  redirectFixture('from_absolute_uri', 'accepted', [notFound('other-host', '/x')]),
  {
    id: 'netlify/redirects/from_absolute_uri@site-host',
    source: `${REDIRECT_PARSER}/fixtures/redirects_file/from_absolute_uri, its host replaced by the site's`,
    redirects: 'http://{{HOST}}/* http://www.hello.com/:splat\n',
    deploy: 'accepted',
    requests: [redirect('own-host', '/a/b', 301, 'http://www.hello.com/a/b')],
  },
  redirectFixture('from_simple', 'accepted', [redirect('rule', '/home', 301, '/')]),
  redirectFixture('invalid_dot_netlify_path', 'refused'),
  redirectFixture('invalid_dot_netlify_url', 'refused'),
  redirectFixture('invalid_mistaken_headers', 'refused'),
  redirectFixture('invalid_no_slash', 'refused'),
  redirectFixture('invalid_no_to_no_status', 'refused'),
  redirectFixture('invalid_no_to_query', 'refused'),
  redirectFixture('invalid_no_to_status', 'refused'),
  redirectFixture('invalid_status', 'refused'),
  redirectFixture('invalid_url', 'refused'),
  {
    id: 'netlify/redirects/large_45000_redirects_file',
    source: `${REDIRECT_PARSER}/fixtures/redirects_file/large_45000_redirects_file (regenerated, see README)`,
    redirects: LARGE_REDIRECTS,
    deploy: 'accepted',
    requests: [redirect('first', '/base/some-0', 301, '/base/another-0'), redirect('last', '/base/some-44999', 301, '/base/another-44999')],
  },
  redirectFixture('line_trim', 'accepted', [redirect('rule', '/home', 301, '/')]),
  redirectFixture('multiple_lines', 'accepted', [
    redirect('first', '/10thmagnitude', 301, 'http://www.10thmagnitude.com/'),
    redirect('second', '/bananastand', 301, 'http://eepurl.com/Lgde5'),
  ]),
  redirectFixture('proxy', 'accepted'),
  {
    id: 'netlify/redirects/proxy@origin',
    source: `${REDIRECT_PARSER}/fixtures/redirects_file/proxy, its origin replaced by the test's`,
    redirects: '/api/*  {{ORIGIN}}/*   200\n',
    deploy: 'accepted',
    requests: [
      { id: 'get', path: '/api/users', expect: { status: 200, body: /^origin GET / } },
      {
        id: 'post',
        method: 'POST',
        path: '/api/users',
        body: 'name=x',
        headers: { 'Content-Type': 'text/plain' },
        expect: { status: 200, body: /^origin POST .* body=name=x$/ },
      },
    ],
  },
  redirectFixture('query', 'accepted', [
    redirect('literal-value', '/?page=news', 301, '/news?page=news'),
    redirect('captured-value', '/blog?post=42', 301, '/blog/42?post=42'),
    redirect('third-rule-same-source', '/?_escaped_fragment_=/about', 301, '/about?_escaped_fragment_=/about'),
    notFound('other-value', '/?page=sports'),
    notFound('no-query', '/blog'),
  ]),
  redirectFixture('signed', 'accepted', [], { signingSecret: true }),
  {
    id: 'netlify/redirects/signed@origin',
    source: `${REDIRECT_PARSER}/fixtures/redirects_file/signed, its origin replaced by the test's`,
    redirects: '/api/*   {{ORIGIN}}/:splat   200!  Sign=API_SECRET\n',
    signingSecret: true,
    deploy: 'accepted',
    requests: [{ id: 'signed', path: '/api/orders', expect: { status: 200, body: 'origin GET /orders sign=valid' } }],
  },
  redirectFixture('signed_backward_compat', 'accepted', [], { signingSecret: true }),
  {
    id: 'netlify/redirects/signed_backward_compat@origin',
    source: `${REDIRECT_PARSER}/fixtures/redirects_file/signed_backward_compat, its origin replaced by the test's`,
    redirects: '/api/*   {{ORIGIN}}/:splat   200!  signed=API_SECRET\n',
    signingSecret: true,
    deploy: 'accepted',
    requests: [{ id: 'signed', path: '/api/orders', expect: { status: 200, body: 'origin GET /orders sign=valid' } }],
  },
  redirectFixture('simple', 'accepted', [redirect('rule', '/one', 301, '/two')]),
  // The same source twice: the first rule wins.
  redirectFixture('simple_multiple', 'accepted', [redirect('first-wins', '/one', 301, '/two')]),
  redirectFixture('status', 'accepted', [redirect('rule', '/test', 301, 'https://www.bitballoon.com/test=hello')]),
  redirectFixture('status_force', 'accepted', [redirect('forced-over-file', '/test', 301, 'https://www.bitballoon.com/test=hello')], { files: ['test.html'] }),
  redirectFixture('to_anchor', 'accepted', [redirect('rule', '/blog/my-post-ads.php', 301, '/blog/my-post#ads')]),
  // `/admin/* 200`: the shorthand for `/admin/* /admin/:splat 200`.
  redirectFixture('to_path_forward', 'accepted', [served('file', '/admin/users', 'admin/users.html'), notFound('missing', '/admin/none')], {
    files: ['admin/users.html'],
  }),
  redirectFixture('to_splat_force', 'accepted', [redirect('forced-over-file', '/a.html', 301, 'https://www.bitballoon.com/a.html')], { files: ['a.html'] }),
  redirectFixture(
    'to_splat_no_force',
    'accepted',
    [served('file-first', '/a', 'a.html'), redirect('no-file', '/gone', 301, 'https://www.bitballoon.com/gone')],
    {
      files: ['a.html'],
    },
  ),
];

const header = (id: string, path: string, headers: Record<string, string | RegExp | null>, file = 'path.html'): PeerRequest => ({
  id,
  path,
  expect: { status: 200, body: page(file), headers },
});

/** One site per fixture file of the headers parser. */
function headersFixture(name: string, deploy: 'accepted' | 'refused', requests: PeerRequest[] = []): PeerSite {
  return {
    id: `netlify/headers/${name}`,
    source: `${HEADERS_PARSER}/fixtures/headers_file/${name} (line-parser.test.ts)`,
    headers: headersFile(name),
    files: ['path.html'],
    deploy,
    requests,
  };
}

/** Generated, not copied (458 KB and 2.4 MB): the same blocks `/base/some-N` with `test: some-N`. */
const largeHeaders = (blocks: number) => Array.from({ length: blocks }, (_, i) => `      /base/some-${i}\n        test: some-${i}\n`).join('');

const headerSites: PeerSite[] = [
  headersFixture('comment', 'accepted', [header('value', '/path', { test: 'one' })]),
  // Two blocks for one path: Netlify's parser keeps both, in file order.
  headersFixture('duplicate', 'accepted', [header('both-blocks', '/path', { test: /one.*three/ })]),
  headersFixture('empty_line', 'accepted', [header('value', '/path', { test: 'one' })]),
  headersFixture('invalid_for_order', 'refused'),
  headersFixture('invalid_value_name', 'refused'),
  headersFixture('invalid_value_string', 'refused'),
  headersFixture('multiple_values', 'accepted', [header('joined', '/path', { test: 'one, two' })]),
  // A line without a colon is skipped: the file deploys with no header for /path.
  headersFixture('no_colon', 'accepted', [header('skipped', '/path', { test: null })]),
  headersFixture('success', 'accepted', [header('value', '/path', { test: 'one' })]),
  headersFixture('success_two', 'accepted', [header('value', '/path', { test: 'two' })]),
  headersFixture('trim_line_path', 'accepted', [header('no-headers', '/path', { test: null })]),
  headersFixture('trim_line_values', 'accepted', [header('value', '/path', { test: 'one' })]),
  headersFixture('trim_name', 'accepted', [header('value', '/path', { test: 'one' })]),
  headersFixture('trim_value', 'accepted', [header('value', '/path', { test: 'one' })]),
  {
    id: 'netlify/headers/large_headers_file',
    source: `${HEADERS_PARSER}/fixtures/headers_file/large_headers_file (regenerated, see README)`,
    headers: largeHeaders(10_000),
    files: ['base/some-7.html'],
    deploy: 'accepted',
    requests: [header('block', '/base/some-7', { test: 'some-7' }, 'base/some-7.html')],
  },
  {
    id: 'netlify/headers/large_45000_headers_file',
    source: `${HEADERS_PARSER}/fixtures/headers_file/large_45000_headers_file (regenerated, see README)`,
    headers: largeHeaders(45_000),
    deploy: 'accepted',
  },
];

/**
 * for-regexp.test.ts: the pattern Netlify compiles from a `_headers` path (case-insensitive,
 * an optional trailing `/`, `*` matching anything, `:name` one segment), shown by requests.
 * Paths that a `_headers` file cannot hold (empty, `*` alone, no leading `/`, inner spaces
 * that the file's own trimming would change) are left out.
 */
function forPattern(id: string, path: string, matches: string[], misses: string[]): PeerSite {
  const requests: PeerRequest[] = [
    ...matches.map((p, i) => ({ id: `matches-${i + 1}`, path: p, expect: { headers: { 'x-peer': 'yes' } } })),
    ...misses.map((p, i) => ({ id: `misses-${i + 1}`, path: p, expect: { headers: { 'x-peer': null } } })),
  ];
  return {
    id: `netlify/headers-for/${id}`,
    source: `${HEADERS_PARSER}/for-regexp.test.ts "${id}" (${JSON.stringify(path)})`,
    headers: `${path}\n  X-Peer: yes\n`,
    files: ['index.html'],
    deploy: 'accepted',
    requests,
  };
}

const forSites: PeerSite[] = [
  forPattern('single_slash', '/', ['/'], ['/other']),
  forPattern('trim_end', '/a ', ['/a'], []),
  forPattern('placeholder', '/a/:b', ['/a/x', '/a/x/', '/A/X'], ['/a/x/y']),
  forPattern('wildcard_slash', '/*', ['/', '/deep/er'], []),
  forPattern('wildcard_append', '/*/a', ['/x/a', '/x/y/a', '/a'], ['/x/b']),
  forPattern('wildcard_prepend', '/a/*', ['/a/b/c', '/a', '/ab'], ['/b']),
  forPattern('wildcard_surround', '/a/*/b', ['/a/x/b', '/a/b'], ['/a/x/c']),
  forPattern('wildcard_multiple', '/a/*/*', ['/a/x/y'], ['/b/x/y']),
  forPattern('wildcard_inside', '/a/b*c', ['/a/bxyc', '/a/b/x/c'], ['/a/bxy']),
  forPattern('trailing_slash', '/a/', ['/a/', '/a', '/A/'], ['/ab']),
  forPattern('regexp_escape', '/a.', ['/a.'], ['/ab']),
  forPattern('double_slash_single', '//', ['/'], ['/x']),
  forPattern('double_slash_multiple', '//a//b//', ['/a/b', '/a/b/'], ['/a/c']),
];

export const NETLIFY_SITES: PeerSite[] = [...redirectSites, ...headerSites, ...forSites];
