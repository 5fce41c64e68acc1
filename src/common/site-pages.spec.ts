import { createHash } from 'node:crypto';

import { gatePage, messagePage, PAGE_CSP, PAGE_HEADERS, PAGES } from './site-pages';

const ALL_PAGES = [
  gatePage({ kind: 'password', siteName: 'Launch <plan>', next: '/a?b=1' }),
  gatePage({ kind: 'email', siteName: 'Launch', next: '/', error: 'Enter a valid email', value: '"><style>x{}</style>' }),
  messagePage('Title', 'Message'),
  ...Object.values(PAGES).map((page) => page(30)),
];

describe('built-in pages and their Content-Security-Policy', () => {
  it('allows every inline <style> of every page by its hash, and nothing else inline', () => {
    for (const html of ALL_PAGES) {
      const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
      expect(styles).toHaveLength(1);
      for (const css of styles) expect(PAGE_CSP).toContain(`'sha256-${createHash('sha256').update(css).digest('base64')}'`);
      expect(html).not.toMatch(/<script|\son\w+=|\sstyle=/i);
    }
  });

  it("is strict: no 'unsafe-inline', no other origin, no framing", () => {
    expect(PAGE_CSP).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]{43}='; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/,
    );
    expect(PAGE_HEADERS).toMatchObject({ 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'no-referrer' });
  });
});
