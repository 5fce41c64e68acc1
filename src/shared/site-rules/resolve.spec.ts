import { NO_HEADER_RULES, parseHeaders } from './headers';
import { NO_REDIRECTS, parseRedirects, type RedirectRules } from './redirects';
import { NO_NEEDS } from './request-context';
import { findRedirectLoops, resolveRequest, siteRuleNeeds } from './resolve';

const site = (...files: string[]) => {
  const set = new Set(files);
  return (p: string) => set.has(p);
};
const rules = (text: string): RedirectRules => {
  const parsed = parseRedirects(Buffer.from(text));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.rules;
};

describe('resolveRequest (_redirects, then canonical URLs, then not-found)', () => {
  const has = site('index.html', 'about.html', 'shell.html', 'team/index.html', '404.html');
  const r = rules('/about /x 302\n/forced /y 302!\n/app/* /shell.html 200\n/gone /nothing.html 200\n/team /people 301');

  it.each([
    ['about', '', { kind: 'file', path: 'about.html', status: 200 }],
    ['about.html', 'q=1', { kind: 'redirect', status: 308, location: '/about?q=1' }],
    ['forced', '', { kind: 'redirect', status: 302, location: '/y' }],
    ['app/a/b', '', { kind: 'file', path: 'shell.html', status: 200 }],
    ['gone', '', { kind: 'file', path: '404.html', status: 404 }],
    // The canonical redirect to "team/" is a file answering the path: it shadows the unforced rule.
    ['team', '', { kind: 'redirect', status: 308, location: '/team/' }],
    ['nope', '', { kind: 'file', path: '404.html', status: 404 }],
  ])('%s?%s', (path, query, expected) => {
    expect(resolveRequest(path, query, r, has)).toEqual(expected);
  });

  it('answers a path no file could have with the top-level 404.html only, never the SPA shell', () => {
    expect(resolveRequest(null, '', r, has)).toEqual({ kind: 'file', path: '404.html', status: 404 });
    expect(resolveRequest(null, '', rules('/* /index.html 200'), site('index.html'))).toEqual({ kind: 'not_found' });
  });
});

describe('findRedirectLoops', () => {
  it('finds loops between rules, through canonical redirects and through a query-only change', () => {
    const errors = findRedirectLoops(rules('/a /b\n/b /a\n/dir/ /dir 301!\n/q /q?x=1 302\n/ok /elsewhere'), site('dir/index.html'));
    expect(errors).toEqual([
      { line: 1, message: 'redirects in a loop: /a → /b → /a' },
      { line: 2, message: 'redirects in a loop: /b → /a → /b' },
      { line: 3, message: 'redirects in a loop: /dir/ → /dir → /dir/' },
      { line: 4, message: 'redirects in a loop: /q → /q?x=1 → /q?x=1' },
    ]);
  });

  it('finds loops of dynamic rules, and chains longer than a browser follows', () => {
    expect(findRedirectLoops(rules('/a/:id /b/:id 302\n/b/* /a/:splat 302'), site())).toHaveLength(2);
    const chain = Array.from({ length: 25 }, (_, i) => `/s${i} /s${i + 1} 302`).join('\n');
    expect(findRedirectLoops(rules(chain), site())[0]).toEqual({ line: 1, message: expect.stringContaining('more than 20 redirects') });
  });

  it('leaves shadowed rules, absolute URLs and rewrites alone', () => {
    expect(findRedirectLoops(rules('/a /b\n/b /a\n/x https://example.com/x\n/* /index.html 200'), site('a.html', 'index.html'))).toEqual([]);
  });
});

describe('findRedirectLoops with conditions (issue 34)', () => {
  it('reports no loop between rules no single visitor can chain', () => {
    const text = [
      '/a /b 302 Language=en',
      '/b /a 302 Language=fr',
      '/c /d 302 Country=de',
      '/d /c 302 Country=fr',
      'https://one.example.com/e /f 301',
      'https://two.example.com/f /e 301',
      '/g x=:x /h?y=1 302',
      '/h x=:x /g 302',
    ].join('\n');
    expect(findRedirectLoops(rules(text), site())).toEqual([]);
  });

  it('finds loops a visitor with the conditions satisfied hits', () => {
    const text = [
      '/a /b 302 Language=en',
      '/b /a 302 Language=en-GB,en',
      'https://one.example.com/e /f 301',
      'https://one.example.com/f /e 301',
      '/g x=:x /h 302',
      '/h x=:x /g 302',
      '/q /q?x=1 302',
      '/i /j?k=1 302',
      '/j k=1 /i 302',
    ].join('\n');
    expect(findRedirectLoops(rules(text), site()).map((e) => e.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});

describe('resolveRequest with a context and a trace', () => {
  it('passes both to the rules', () => {
    const r = rules('/ /de/ 302 Country=de\n/ /en/ 302 Language=en');
    const trace = { conditional: false, language: false, country: false };
    expect(resolveRequest('', '', r, site(), { host: 'x', languages: [], country: 'DE' }, trace)).toEqual({
      kind: 'redirect',
      status: 302,
      location: '/de/',
    });
    expect(trace).toEqual({ conditional: true, language: false, country: true });
  });
});

describe('siteRuleNeeds', () => {
  const headers = (text: string) => {
    const parsed = parseHeaders(Buffer.from(text));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    return parsed.rules;
  };

  it("reads the host for a _headers block that names one, and nothing more for a site without one (the _redirects' own object)", () => {
    expect(siteRuleNeeds(NO_REDIRECTS, NO_HEADER_RULES)).toBe(NO_NEEDS);
    const languages = rules('/ /fr/ 302! Language=fr');
    expect(siteRuleNeeds(languages, headers('/*\n  X: 1'))).toBe(languages.needs);
    expect(siteRuleNeeds(NO_REDIRECTS, headers('https://example.com/*\n  X: 1'))).toEqual({ host: true, language: false, country: false });
    expect(siteRuleNeeds(languages, headers('https://example.com/*\n  X: 1'))).toEqual({ host: true, language: true, country: false });
  });
});
