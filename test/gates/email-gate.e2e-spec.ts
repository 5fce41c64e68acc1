import { Clock } from '../../src/common/time';
import { startTestApp, type TestApp } from '../helpers/app';
import { cookieFrom, emailGatedProject, freshIp, submitEmail } from '../helpers/email-gate';
import { asUser, createApiToken, registerUser, type UserSession } from '../helpers/identity';
import { deploySite, site } from '../helpers/sites';

const MAX_PER_WINDOW = 4;

describe('Email gate: capture (e2e)', () => {
  let t: TestApp;
  let owner: UserSession;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { TRUST_PROXY: 'true', LEADS_CAPTURE_MAX_PER_WINDOW: String(MAX_PER_WINDOW) } });
    owner = await registerUser(t);
    const { token } = await createApiToken(t, owner, { scopes: ['deploy'] });
    projectId = await emailGatedProject(t, owner, 'guestlist', 'The Guest List');
    await deploySite(t, token, 'guestlist', [
      { path: 'index.html', content: '<h1>the guest list</h1>' },
      { path: 'docs/page.html', content: 'deep page' },
    ]);
  });
  afterAll(() => t?.close());

  const leads = async () => (await t.http().get(`/projects/${projectId}/gate/leads?limit=100`).set(asUser(owner)).expect(200)).body;

  it.each([
    ['GET', '/'],
    ['GET', '/docs/page.html'],
    ['GET', '/missing'],
    ['HEAD', '/'],
    ['POST', '/'],
    ['GET', '/.statichost/gate'],
  ])('answers %s %s with the email form (401), private and uncacheable', async (method, path) => {
    const res = await site(t, 'guestlist').request(method, path).expect(401);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers.vary).toBe('Cookie');
    if (method !== 'HEAD') {
      expect(res.text).toContain('<form method="post" action="/.statichost/gate">');
      expect(res.text).toContain('name="email" type="email"');
      expect(res.text).not.toContain('the guest list');
    }
  });

  it.each([
    ['nothing', '', 'Enter your email address.'],
    ['blanks', '   ', 'Enter your email address.'],
    ['no @', 'not-an-email', 'does not look like an email address'],
    ['no dotted domain', 'someone@localhost', 'does not look like an email address'],
    ['no TLD', 'a@b', 'does not look like an email address'],
    ['a display name', 'Someone <someone@example.com>', 'does not look like an email address'],
    ['262 characters', `${'x'.repeat(250)}@example.com`, 'too long (at most 254 characters)'],
  ])('refuses %s with the form again (400) and stores nothing', async (_what, email, error) => {
    const before = (await leads()).meta.total;
    const res = await submitEmail(t, 'guestlist', email, { next: '/docs/page.html' }).expect(400);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.text).toContain(error);
    expect(res.text).toContain('name="next" value="/docs/page.html"');
    expect(res.text).toContain('aria-invalid="true"');
    expect((await leads()).meta.total).toBe(before);
  });

  it('answers a form without an email field like an empty one', async () => {
    const res = await site(t, 'guestlist').post('/.statichost/gate').set('X-Forwarded-For', freshIp()).type('form').send({ next: '/' }).expect(400);
    expect(res.text).toContain('Enter your email address.');
  });

  it('shows back what was typed, escaped', async () => {
    const res = await submitEmail(t, 'guestlist', '"><script>alert(1)</script>').expect(400);
    expect(res.text).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(res.text).not.toContain('<script>alert');
  });

  it('stores a valid email, sets the signed access cookie and sends the visitor back to the page first asked for', async () => {
    const res = await submitEmail(t, 'guestlist', '  Grace.Hopper@Navy.example  ', { next: '/docs/page.html?from=mail' }).expect(303);
    expect(res.headers.location).toBe('/docs/page.html?from=mail');
    expect(res.headers['cache-control']).toBe('private, no-store');
    const setCookie = (res.headers['set-cookie'] as unknown as string[])[0];
    // v2: it names the visitor's lead (an opaque id, never the email), for linking form submissions.
    expect(setCookie).toMatch(/^statichost_gate=v2\.proj_[0-9a-z]+\.\d+\.\d+\.lead_[0-9a-z]{24}\.[\w-]{43};/);
    expect(setCookie.toLowerCase()).not.toContain('hopper');
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');

    const cookie = cookieFrom(res);
    expect((await site(t, 'guestlist').get('/docs/page').set('Cookie', cookie).expect(200)).text).toBe('deep page');
    expect((await site(t, 'guestlist').get('/').set('Cookie', cookie).expect(200)).text).toBe('<h1>the guest list</h1>');

    const { data } = await leads();
    const lead = data.find((l: { email: string }) => l.email === 'grace.hopper@navy.example');
    expect(lead).toBeDefined();
    expect(Object.keys(lead).sort()).toEqual(['capturedAt', 'email', 'id']);
    expect(lead.id).toMatch(/^lead_[0-9a-z]{24}$/);
    expect(setCookie).toContain(`.${lead.id}.`);
    expect(lead.capturedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it.each([['//evil.example'], ['https://evil.example/x'], ['/\\evil.example'], ['javascript:alert(1)']])('ignores the unsafe next %j', async (next) => {
    const res = await submitEmail(t, 'guestlist', 'careful@visitor.example', { next }).expect(303);
    expect(res.headers.location).toBe('/');
  });

  it('keeps one lead per email and project, with the time of the first capture', async () => {
    const clock = jest.spyOn(t.app.get(Clock), 'now');
    try {
      clock.mockReturnValue(new Date('2031-03-04T05:06:07.089Z'));
      await submitEmail(t, 'guestlist', 'returning@visitor.example').expect(303);
      clock.mockReturnValue(new Date('2031-03-05T00:00:00.000Z'));
      const again = await submitEmail(t, 'guestlist', 'ReTurning@Visitor.EXAMPLE ').expect(303);
      // The second visit is let in too.
      expect(cookieFrom(again)).toMatch(/^statichost_gate=/);
    } finally {
      clock.mockRestore();
    }
    const matches = (await leads()).data.filter((l: { email: string }) => l.email === 'returning@visitor.example');
    expect(matches).toHaveLength(1);
    expect(matches[0].capturedAt).toBe('2031-03-04T05:06:07.089Z');
  });

  it('limits submissions per client address and site (429 with Retry-After), counting refused ones too', async () => {
    const ip = '203.0.113.77';
    await submitEmail(t, 'guestlist', 'bad', { ip }).expect(400);
    for (let i = 1; i < MAX_PER_WINDOW; i++) await submitEmail(t, 'guestlist', `burst${i}@visitor.example`, { ip }).expect(303);
    const before = (await leads()).meta.total;
    const blocked = await submitEmail(t, 'guestlist', 'one-too-many@visitor.example', { ip }).expect(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(t.config.LEADS_CAPTURE_WINDOW_SECONDS);
    expect(blocked.headers['cache-control']).toBe('private, no-store');
    expect(blocked.headers['set-cookie']).toBeUndefined();
    expect(blocked.text).toContain('Too many attempts');
    expect((await leads()).meta.total).toBe(before);

    // Another address is not affected, nor the same address on another site.
    await submitEmail(t, 'guestlist', 'neighbour@visitor.example', { ip: '203.0.113.78' }).expect(303);
    await emailGatedProject(t, owner, 'other-list');
    await submitEmail(t, 'other-list', 'elsewhere@visitor.example', { ip }).expect(303);
  });

  it('counts an IPv6 client by its /64, which one host commonly holds whole', async () => {
    for (let i = 1; i <= MAX_PER_WINDOW; i++) await submitEmail(t, 'guestlist', `v6-${i}@visitor.example`, { ip: `2001:db8:9:1::${i}` }).expect(303);
    await submitEmail(t, 'guestlist', 'v6-over@visitor.example', { ip: '2001:db8:9:1:abcd::1' }).expect(429);
    await submitEmail(t, 'guestlist', 'v6-next@visitor.example', { ip: '2001:db8:9:2::1' }).expect(303);
  });

  it('copes with an absurd forwarded client address', async () => {
    const ip = `${'9'.repeat(300)}`;
    await submitEmail(t, 'guestlist', 'long.address@visitor.example', { ip }).expect(303);
  });

  it('serves the form again once the gate cookie belongs to an earlier gate version', async () => {
    const cookie = cookieFrom(await submitEmail(t, 'guestlist', 'versioned@visitor.example').expect(303));
    await site(t, 'guestlist').get('/').set('Cookie', cookie).expect(200);
    await t.http().patch(`/projects/${projectId}`).set(asUser(owner)).send({ gate_type: 'none' }).expect(200);
    await t.http().patch(`/projects/${projectId}`).set(asUser(owner)).send({ gate_type: 'email' }).expect(200);
    await site(t, 'guestlist').get('/').set('Cookie', cookie).expect(401);
  });

  it('answers the unknown-site page when the project disappeared between the form and the submission', async () => {
    const doomed = await emailGatedProject(t, owner, 'doomed-list');
    await submitEmail(t, 'doomed-list', 'early@visitor.example').expect(303);
    // Deleted behind the site cache's back: the router still shows the form.
    await t.dataSource.query('DELETE FROM projects WHERE id = $1', [doomed]);
    const res = await submitEmail(t, 'doomed-list', 'late@visitor.example').expect(404);
    expect(res.text).toContain('Site not found');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(await t.dataSource.query('SELECT id FROM leads WHERE project_id = $1', [doomed])).toEqual([]);
  });
});
