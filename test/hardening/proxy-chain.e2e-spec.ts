import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, createApiToken, registerUser } from '../helpers/identity';
import { deploySite, site } from '../helpers/sites';

/**
 * client → proxy A (CDN, 10.0.0.2) → proxy B (this test, 127.0.0.1) → app. The client
 * sends a forged X-Forwarded-For; A appends the client's real address, B appends A's.
 * The app must take the client's address, TRUST_PROXY hops from the right.
 */
const chain = (forged: string, client: string) => `${forged}, ${client}, 10.0.0.2`;

describe.each([
  ['a hop count', '2'],
  ['a list of proxy addresses', 'loopback, 10.0.0.0/8'],
])('Client address behind two proxies, TRUST_PROXY as %s (e2e)', (_form, trustProxy) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { TRUST_PROXY: trustProxy, LOGIN_MAX_FAILURES_PER_ADDRESS: '3', GATE_MAX_ATTEMPTS: '3' } });
  });
  afterAll(() => t?.close());

  it('the login throttle counts the real client, whatever it forges, and no one else', async () => {
    const user = await registerUser(t);
    const login = (password: string, xff: string) => t.http().post('/auth/login').set('X-Forwarded-For', xff).send({ email: user.email, password });
    for (let i = 0; i < 3; i++) await login('wrong password', chain(`6.6.6.${i}`, '203.0.113.7')).expect(401);
    await login('wrong password', chain('6.6.6.99', '203.0.113.7')).expect(429);
    // Another client behind the same proxies, forging the same first entries, is not held back.
    await login(user.password, chain('6.6.6.0', '203.0.113.8')).expect(200);
  });

  it("the password gate's rate limit counts the real client too", async () => {
    const owner = await registerUser(t);
    const { token } = await createApiToken(t, owner, { scopes: ['deploy'] });
    await deploySite(t, token, 'chained', [{ path: 'index.html', content: 'behind the gate' }]);
    const project = (await t.http().get('/projects').set(asUser(owner))).body.data[0].id as string;
    await t.http().patch(`/projects/${project}`).set(asUser(owner)).send({ gate_type: 'password', password: 'open sesame 42' }).expect(200);
    const guess = (password: string, xff: string) =>
      site(t, 'chained').post('/.statichost/gate').set('X-Forwarded-For', xff).type('form').send({ password, next: '/' });
    for (let i = 0; i < 3; i++) await guess('wrong', chain(`6.6.6.${i}`, '198.51.100.7')).expect(401);
    await guess('wrong', chain('6.6.6.99', '198.51.100.7')).expect(429);
    await guess('open sesame 42', chain('6.6.6.0', '198.51.100.8')).expect(303);
  });

  it("the request log has the real client's network, never its address, the forged one or a user agent", async () => {
    await t.http().get('/health').set('X-Forwarded-For', chain('6.6.6.6', '203.0.113.77')).set('User-Agent', 'MarkerBrowser/9.9').expect(200);
    const line = t.logs.find((l) => l.includes('"url":"/health"'));
    expect(line).toContain('"remoteAddress":"203.0.113.0/24"');
    for (const kept of ['203.0.113.77', '6.6.6.6', 'MarkerBrowser']) expect(line).not.toContain(kept);
  });
});
