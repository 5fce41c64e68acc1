import { startTestApp, type TestApp } from '../helpers/app';
import { bearer, uniqueEmail } from '../helpers/identity';

/** Limits per client address across accounts (issue #26): password spraying, and the mail-sending requests. */

const COMMON_PASSWORD = 'Summer-2026-everyone';

function register(t: TestApp, email: string, password: string, from: string) {
  return t.http().post('/auth/register').set('X-Forwarded-For', from).send({ email, password, name: 'Sprayed' });
}

describe('Password spraying from one address (e2e, shipped defaults)', () => {
  let t: TestApp;
  const accounts: string[] = [];

  beforeAll(async () => {
    // The shipped defaults of the limit across accounts (the helper turns it off for other suites).
    t = await startTestApp({ env: { TRUST_PROXY: 'true', LOGIN_MAX_FAILURES_ACROSS_ACCOUNTS: undefined, LOGIN_ACROSS_ACCOUNTS_WINDOW_SECONDS: undefined } });
    for (let i = 0; i < 19; i++) {
      const email = uniqueEmail('sprayed');
      await register(t, email, COMMON_PASSWORD, `198.51.100.${i + 1}`).expect(201);
      accounts.push(email);
    }
  }, 120_000);
  afterAll(() => t?.close());

  const login = (email: string, password: string, from: string) => t.http().post('/auth/login').set('X-Forwarded-For', from).send({ email, password });

  it('answers 429 with Retry-After well before 60 accounts, and then signs in to none with the common password', async () => {
    const spray = '203.0.113.66';
    // The probe's loop: one wrong password on 60 distinct emails (the 19 accounts among them).
    const emails = [...accounts, ...Array.from({ length: 41 }, () => uniqueEmail('guess'))];
    const statuses: number[] = [];
    let refusal: { status: number; headers: Record<string, string>; body: unknown } | undefined;
    for (const email of emails) {
      const res = await login(email, 'Winter-2025-everyone', spray);
      statuses.push(res.status);
      if (res.status === 429) refusal ??= res;
    }
    expect(statuses.slice(0, 30)).toEqual(Array(30).fill(401));
    expect(statuses.slice(30)).toEqual(Array(30).fill(429));
    expect(refusal!.body).toMatchObject({
      statusCode: 429,
      error: 'Too Many Requests',
      code: 'rate_limited',
      message: expect.stringContaining('from this address'),
    });
    const retryAfter = Number(refusal!.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(10 * 60);

    // The same loop with the right (common) password: 429 every time, so no answer tells it is right.
    for (const email of accounts) await login(email, COMMON_PASSWORD, spray).expect(429);
    // Someone at another address is not held back, and the refused attempts did not eat the accounts' own counts.
    for (const email of accounts.slice(0, 3)) await login(email, COMMON_PASSWORD, '192.0.2.200').expect(200);
  });

  it('counts an IPv6 client by its /64: a fresh address per attempt does not escape the limit', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 31; i++) statuses.push((await login(uniqueEmail('v6guess'), 'Winter-2025-everyone', `2001:db8:66:1::${i.toString(16)}`)).status);
    expect(statuses.slice(0, 30)).toEqual(Array(30).fill(401));
    expect(statuses[30]).toBe(429);
    // Another /64 is another client.
    await login(uniqueEmail('v6guess'), 'Winter-2025-everyone', '2001:db8:66:2::1').expect(401);
  });

  it('a right password does not clear the count: signing in to an own account buys one attempt, not a fresh window', async () => {
    const spray = '203.0.113.77';
    const [own] = accounts;
    for (let i = 0; i < 29; i++) await login(uniqueEmail('guess'), 'Winter-2025-everyone', spray).expect(401);
    await login(own, COMMON_PASSWORD, spray).expect(200);
    await login(uniqueEmail('guess'), 'Winter-2025-everyone', spray).expect(401);
    await login(uniqueEmail('guess'), 'Winter-2025-everyone', spray).expect(429);
    await login(own, COMMON_PASSWORD, spray).expect(429);
  });
});

describe('Mail-sending requests per client address, across accounts (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { TRUST_PROXY: 'true', ACCOUNT_MAIL_MAX_PER_ADDRESS: '3', ACCOUNT_MAIL_MAX_PER_WINDOW: '2' } });
  });
  afterAll(() => t?.close());

  it('registrations count, taken emails included, so one address cannot ask which emails have an account without end', async () => {
    const from = '192.0.2.31';
    const taken = uniqueEmail('taken');
    await register(t, taken, COMMON_PASSWORD, '192.0.2.30').expect(201);
    await register(t, uniqueEmail(), COMMON_PASSWORD, from).expect(201);
    expect((await register(t, taken, COMMON_PASSWORD, from).expect(409)).body.code).toBe('email_taken');
    await register(t, uniqueEmail(), COMMON_PASSWORD, from).expect(201);
    const refused = await register(t, taken, COMMON_PASSWORD, from).expect(429);
    expect(refused.body).toMatchObject({ statusCode: 429, code: 'rate_limited' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Reset requests for other emails from that address share the count.
    await t.http().post('/auth/password-reset').set('X-Forwarded-For', from).send({ email: uniqueEmail() }).expect(429);
    // Another address registers as usual.
    await register(t, uniqueEmail(), COMMON_PASSWORD, '192.0.2.32').expect(201);
  });

  it('reset requests for many emails from one address stop at the address limit', async () => {
    const from = '192.0.2.41';
    for (let i = 0; i < 3; i++) await t.http().post('/auth/password-reset').set('X-Forwarded-For', from).send({ email: uniqueEmail() }).expect(202);
    await t.http().post('/auth/password-reset').set('X-Forwarded-For', from).send({ email: uniqueEmail() }).expect(429);
  });

  it('an email change to a taken address counts before it is answered 409', async () => {
    const taken = uniqueEmail('taken');
    await register(t, taken, COMMON_PASSWORD, '192.0.2.50').expect(201);
    const me = (await register(t, uniqueEmail(), COMMON_PASSWORD, '192.0.2.51').expect(201)).body as { accessToken: string };
    const change = () => t.http().patch('/users/me').set('X-Forwarded-For', '192.0.2.52').set(bearer(me.accessToken)).send({ email: taken });
    expect((await change().expect(409)).body.code).toBe('email_taken');
    expect((await change().expect(409)).body.code).toBe('email_taken');
    expect((await change().expect(429)).body.code).toBe('rate_limited');
  });
});

describe('Single sign-on starts per client address (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { TRUST_PROXY: 'true', SSO_START_MAX_PER_ADDRESS: '3' } });
  });
  afterAll(() => t?.close());

  const start = (from: string, email: string) => t.http().get('/auth/sso/start').set('X-Forwarded-For', from).query({ email });

  it('counts every start, answered or not, so one address can neither fill the pending sign-ins nor probe domains without end', async () => {
    const from = '192.0.2.61';
    // No workspace claims these domains: each start is a 404, and still counts.
    for (const domain of ['one.example', 'two.example', 'three.example']) {
      expect((await start(from, `ada@${domain}`).expect(404)).body.code).toBe('sso_not_configured');
    }
    const refused = await start(from, 'ada@four.example').expect(429);
    expect(refused.body).toMatchObject({ statusCode: 429, code: 'rate_limited', message: expect.stringMatching(/single sign-on starts from this address/) });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not held by it.
    expect((await start('192.0.2.62', 'ada@four.example').expect(404)).body.code).toBe('sso_not_configured');
  });
});
