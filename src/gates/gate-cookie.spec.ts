import fc from 'fast-check';

import { gateCookieName, readGateCookie, safeNextPath, signGateCookie, verifyGateCookie } from './gate-cookie';

const secret = Buffer.alloc(32, 7);
const grant = { projectId: 'proj_a', gateVersion: 3, expiresAt: 2_000_000_000 };
const now = 1_900_000_000;

describe('gate cookie', () => {
  it('verifies for its project and gate version until it expires', () => {
    const cookie = signGateCookie(secret, grant);
    expect(verifyGateCookie(secret, cookie, 'proj_a', 3, now)).toBe(true);
    expect(verifyGateCookie(secret, cookie, 'proj_a', 3, 2_000_000_000)).toBe(false);
  });

  it('is worthless on another project, after a gate change, or under another secret', () => {
    const cookie = signGateCookie(secret, grant);
    expect(verifyGateCookie(secret, cookie, 'proj_b', 3, now)).toBe(false);
    expect(verifyGateCookie(secret, cookie, 'proj_a', 4, now)).toBe(false);
    expect(verifyGateCookie(Buffer.alloc(32, 8), cookie, 'proj_a', 3, now)).toBe(false);
  });

  it('refuses any tampering', () => {
    const cookie = signGateCookie(secret, grant);
    const extended = cookie.replace('.2000000000.', '.2100000000.');
    expect(verifyGateCookie(secret, extended, 'proj_a', 3, now)).toBe(false);
    for (const bad of [undefined, '', 'v1.proj_a.3.2000000000', `${cookie}x`, cookie.replace(/^v1/, 'v2'), 'x'.repeat(300), `${cookie.replace(/^v1/, 'v3')}`]) {
      expect(verifyGateCookie(secret, bad, 'proj_a', 3, now)).toBe(false);
    }
  });

  it("carries the email gate's lead in a v2 cookie, under the same MAC", () => {
    const lead = 'lead_abcdefghijklmnopqrstuvwx';
    const cookie = signGateCookie(secret, { ...grant, leadId: lead });
    expect(cookie).toMatch(/^v2\.proj_a\.3\.2000000000\.lead_abcdefghijklmnopqrstuvwx\.[A-Za-z0-9_-]{43}$/);
    expect(readGateCookie(secret, cookie, 'proj_a', 3)).toEqual({ expiresAt: 2_000_000_000, leadId: lead });
    expect(verifyGateCookie(secret, cookie, 'proj_a', 3, now)).toBe(true);
    expect(cookie.length).toBeLessThan(256);
  });

  it('still accepts a v1 cookie, naming no lead', () => {
    const cookie = signGateCookie(secret, grant);
    expect(cookie.startsWith('v1.')).toBe(true);
    expect(readGateCookie(secret, cookie, 'proj_a', 3)).toEqual({ expiresAt: 2_000_000_000, leadId: null });
  });

  it('refuses a lead swapped, added or removed without the MAC', () => {
    const cookie = signGateCookie(secret, { ...grant, leadId: 'lead_abcdefghijklmnopqrstuvwx' });
    const swapped = cookie.replace('lead_abcdefghijklmnopqrstuvwx', 'lead_zzzzzzzzzzzzzzzzzzzzzzzz');
    const v1 = signGateCookie(secret, grant);
    const mac = v1.split('.').pop()!;
    const added = `v2.proj_a.3.2000000000.lead_abcdefghijklmnopqrstuvwx.${mac}`;
    const removed = cookie.replace(/^v2/, 'v1').replace('.lead_abcdefghijklmnopqrstuvwx', '');
    for (const bad of [swapped, added, removed, cookie.replace(/^v2/, 'v1'), cookie.replace('lead_', 'lead.'), `${cookie.slice(0, -1)}A`]) {
      expect(readGateCookie(secret, bad, 'proj_a', 3)).toBeUndefined();
      expect(verifyGateCookie(secret, bad, 'proj_a', 3, now)).toBe(false);
    }
  });

  it('signs only lead ids as newId makes them (a dot would shift the fields)', () => {
    expect(() => signGateCookie(secret, { ...grant, leadId: 'lead_a.b' })).toThrow(/not a lead id/);
    expect(() => signGateCookie(secret, { ...grant, leadId: 'usr_abcdefghijklmnopqrstuvwx' })).toThrow(/not a lead id/);
  });

  it('uses the __Host- prefix over https', () => {
    expect(gateCookieName(true)).toBe('__Host-statichost_gate');
    expect(gateCookieName(false)).toBe('statichost_gate');
  });
});

describe('safeNextPath', () => {
  it('keeps same-site paths with their query', () => {
    expect(safeNextPath('/docs/a.html?x=1')).toBe('/docs/a.html?x=1');
    expect(safeNextPath('/')).toBe('/');
  });
  it.each(['//evil.com', '/\\evil.com', 'https://evil.com', 'evil.com', '/%0d%0aSet-Cookie:x', 'javascript:alert(1)', '', undefined, 42, '/a\nb'])(
    'refuses %j',
    (next) => {
      const result = safeNextPath(next);
      expect(result.startsWith('/')).toBe(true);
      expect(result.startsWith('//')).toBe(false);
      expect(result).not.toMatch(/[\r\n]/);
      if (next !== '/%0d%0aSet-Cookie:x') expect(result).toBe('/');
    },
  );
});

describe('safeNextPath returns only same-site paths', () => {
  // Judged on the output, as a browser would resolve it from a page of the site.
  const staysOnSite = (out: string) =>
    out.startsWith('/') &&
    !out.startsWith('//') &&
    !out.startsWith('/\\') &&
    !/[\u0000-\u0020\u007f\\]/.test(out) &&
    new URL(out, 'https://site.example/a/b').host === 'site.example';

  it.each(['/.//evil.example/phish', '/x/..//evil.com', '/%2e//evil.com', '/./..//evil.com', '/a/%2e%2e//evil.com', '/x/..\\\\evil.com'])(
    'normalising %j cannot yield //host',
    (next) => {
      expect(safeNextPath(next)).toBe('/');
    },
  );

  it('holds for any string built of path-ish pieces', () => {
    const piece = fc.constantFrom(
      '/',
      '//',
      '\\',
      '.',
      '..',
      '%2e',
      '%2E',
      '%2f',
      '%5c',
      'evil.com',
      '@',
      ':',
      '?',
      '#',
      '\t',
      '\n',
      ';',
      'x',
      ' ',
      '\u3002',
      '\ud800',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => staysOnSite(safeNextPath(parts.join('')))),
      { numRuns: 20_000 },
    );
  });

  it('holds for any string at all', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii', maxLength: 40 }), (s) => staysOnSite(safeNextPath(s)) && staysOnSite(safeNextPath(`/${s}`))),
      { numRuns: 20_000 },
    );
  });
});
