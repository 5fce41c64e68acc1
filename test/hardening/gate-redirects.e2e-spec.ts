import fc from 'fast-check';

import { startTestApp, type TestApp } from '../helpers/app';
import { emailGatedProject, freshIp, submitEmail } from '../helpers/email-gate';
import { asUser, createApiToken, registerUser, type UserSession } from '../helpers/identity';
import { deploySite, site } from '../helpers/sites';

/**
 * After a gate is passed, the visitor is sent to `next` with a 303. Whatever `next`
 * held, the Location must be a path on the same site: a browser reads `//host/x` and
 * `/\host/x` as another host.
 */
function expectSameSite(location: string | undefined, next: string): void {
  const where = `next=${JSON.stringify(next)} → Location ${JSON.stringify(location)}`;
  expect([where, typeof location]).toEqual([where, 'string']);
  const ok = location!.startsWith('/') && !location!.startsWith('//') && !location!.startsWith('/\\') && !/[\u0000-\u0020\u007f\\]/.test(location!);
  // As a browser resolves it against the site's own address.
  const resolved = new URL(location!, 'https://site.example.com/some/page');
  expect([where, ok, resolved.host]).toEqual([where, true, 'site.example.com']);
}

const HOSTILE = [
  '/.//evil.example/phish',
  '/x/..//evil.com',
  '/x/../..//evil.com/',
  '/./..//evil.com',
  '/%2e//evil.com',
  '/%2e%2e//evil.com',
  '/.%2e//evil.com',
  '/a/%2e%2e//evil.com',
  '/./\\evil.com',
  '/x/..\\\\evil.com',
  '//evil.com',
  '/\\evil.com',
  '\\\\evil.com',
  '/\t/evil.com',
  '/\n/evil.com',
  'https://evil.com',
  'http:/evil.com',
  '/.//evil.com?x=1',
  '/;/..//evil.com',
  '/%5C%5Cevil.com',
  '/..%2F..%2F/evil.com',
];

describe('Gate redirects stay on the site (e2e)', () => {
  let t: TestApp;
  let owner: UserSession;

  beforeAll(async () => {
    t = await startTestApp({ env: { TRUST_PROXY: 'true', LEADS_CAPTURE_MAX_PER_WINDOW: '1000' } });
    owner = await registerUser(t);
    const { token } = await createApiToken(t, owner, { scopes: ['deploy'] });
    await emailGatedProject(t, owner, 'mailgate');
    await deploySite(t, token, 'mailgate', [{ path: 'index.html', content: 'hi' }]);
    await t.http().post('/projects').set(asUser(owner)).send({ name: 'pwgate', slug: 'pwgate', gate_type: 'password', password: 'open sesame' }).expect(201);
    await deploySite(t, token, 'pwgate', [{ path: 'index.html', content: 'hi' }]);
  }, 60_000);
  afterAll(() => t?.close());

  const viaEmailGate = async (next: string) => {
    const res = await submitEmail(t, 'mailgate', `v${Math.random().toString(36).slice(2)}@example.com`, { next });
    expect([next, res.status]).toEqual([next, 303]);
    return res.headers.location as string;
  };
  const viaPasswordGate = async (next: string) => {
    const res = await site(t, 'pwgate').post('/.statichost/gate').set('X-Forwarded-For', freshIp()).type('form').send({ password: 'open sesame', next });
    expect([next, res.status]).toEqual([next, 303]);
    return res.headers.location as string;
  };

  it('email gate: the reported case answers Location /, not //evil.example/phish', async () => {
    expect(await viaEmailGate('/.//evil.example/phish')).toBe('/');
  });

  it.each(HOSTILE)('email gate: next=%j stays on the site', async (next) => {
    expectSameSite(await viaEmailGate(next), next);
  });

  it.each(HOSTILE)('password gate: next=%j stays on the site', async (next) => {
    expectSameSite(await viaPasswordGate(next), next);
  });

  it('still sends the visitor back to an ordinary page, query and all', async () => {
    expect(await viaEmailGate('/docs/a b.html?x=1&y=%2F')).toBe('/docs/a%20b.html?x=1&y=%2F');
    expect(await viaPasswordGate('/docs/./page.html')).toBe('/docs/page.html');
  });

  it('the gate page asked for at a hostile path carries a same-site next', async () => {
    const res = await site(t, 'mailgate').get('/.//evil.example/phish').expect(401);
    const next = /name="next" value="([^"]*)"/.exec(res.text)?.[1];
    expectSameSite(next?.replace(/&amp;/g, '&'), '/.//evil.example/phish');
  });

  it('random hostile-looking next values never leave the site (email gate)', async () => {
    const piece = fc.constantFrom('/', '//', '\\', '.', '..', '%2e', '%2f', '%5c', 'evil.com', '@', ':', '?', '#', '\t', ';', 'x');
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { minLength: 1, maxLength: 8 }), async (parts) => {
        const next = parts.join('');
        expectSameSite(await viaEmailGate(next), next);
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
