import { randomBytes } from 'node:crypto';

import { startTestApp, type TestApp } from '../helpers/app';
import { startDnsServer, type TestDnsServer } from '../helpers/dns';
import { bearer, registerUser, type UserSession } from '../helpers/identity';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc';
import { enrolTotp, passkeySignIn, registerPasskey } from '../helpers/second-factors';

/**
 * Enforced single sign-on (issue 32) against the other ways in: an account with a second
 * factor, and a passkey's passwordless sign-in. An enforced domain signs in through its
 * provider only, whatever else the account has set up; sso.e2e-spec.ts covers the
 * provider's flow and enforcement for passwords alone.
 */
describe('Enforced SSO and second factors (e2e)', () => {
  let t: TestApp;
  let dns: TestDnsServer;
  let idp: TestOidcProvider;
  const CLIENT = { client_id: 'statichost', client_secret: `secret-${randomBytes(8).toString('hex')}` };

  beforeAll(async () => {
    dns = await startDnsServer();
    t = await startTestApp({ env: { DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: '2000', SSO_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    idp = await startOidcProvider([{ ...CLIENT, redirect_uris: [`${t.config.apiBaseUrl}/auth/sso/callback`] }]);
  });

  afterAll(async () => {
    await t?.close();
    await idp?.close();
    await dns?.close();
  });

  const domainName = (label: string) => `${label}-${randomBytes(4).toString('hex')}.example`;
  const auth = (u: UserSession) => ({ ...bearer(u.accessToken), 'X-Workspace-Id': u.workspaceId });
  const login = (u: UserSession) => t.http().post('/auth/login').send({ email: u.email, password: u.password });
  const ssoUrl = (u: UserSession) => `${t.config.apiBaseUrl}/auth/sso/start?email=${encodeURIComponent(u.email)}`;

  /**
   * `owner`'s workspace with SSO enforced for `domain`, verified through its TXT record.
   * Set up last: enforcement ends the sessions open at the domain, which the accounts need
   * to enrol their factors first.
   */
  async function enforceSso(owner: UserSession, domain: string): Promise<void> {
    const put = await t
      .http()
      .put(`/workspaces/${owner.workspaceId}/sso`)
      .set(auth(owner))
      .send({
        issuer: idp.issuer,
        clientId: CLIENT.client_id,
        clientSecret: CLIENT.client_secret,
        emailDomains: [domain],
        defaultRole: 'viewer',
        enforce: true,
      })
      .expect(200);
    const record = put.body.emailDomains[0].record;
    dns.setTxt(record.name, record.value);
    const verified = await t.http().post(`/workspaces/${owner.workspaceId}/sso/domains/${domain}/verify`).set(auth(owner)).send({}).expect(200);
    expect(verified.body).toEqual({ domain, verified: true });
  }

  const signIns = async (u: UserSession): Promise<number> =>
    (
      await t.dataSource.query(`SELECT count(*)::int AS n FROM audit_log WHERE workspace_id = $1 AND action = 'user.signed_in' AND actor_id = $2`, [
        u.workspaceId,
        u.userId,
      ])
    )[0].n;

  it('answers a right password 403 sso_required, not a second-factor challenge, when the account has TOTP on', async () => {
    const domain = domainName('totp');
    const owner = await registerUser(t, { email: `boss@${domain}` });
    const staff = await registerUser(t, { email: `staff@${domain}` });
    await enrolTotp(t, owner);
    await enrolTotp(t, staff);
    await enforceSso(owner, domain);

    const res = await login(staff);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(expect.objectContaining({ code: 'sso_required', ssoUrl: ssoUrl(staff) }));
    expect(res.body.challenge).toBeUndefined();
    // Only after the password: a wrong one is the usual 401.
    const wrong = await t.http().post('/auth/login').send({ email: staff.email, password: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('invalid_login');
    // The owner who enforced it keeps the password (break glass), and their second factor still asks.
    const breakGlass = await login(owner);
    expect(breakGlass.status).toBe(401);
    expect(breakGlass.body).toEqual(expect.objectContaining({ code: 'second_factor_required', challenge: expect.any(String) }));
  });

  it('asks again when the challenge is answered: one handed out before enforcement is refused after it, and a break glass is audited only once its second factor is answered', async () => {
    const domain = domainName('late');
    const owner = await registerUser(t, { email: `boss@${domain}` });
    const staff = await registerUser(t, { email: `staff@${domain}` });
    const ownerFactors = await enrolTotp(t, owner);
    const staffFactors = await enrolTotp(t, staff);
    const before = await login(staff);
    expect(before.body.code).toBe('second_factor_required');
    await enforceSso(owner, domain);

    const answered = await t.http().post('/auth/login/second-factor').send({ challenge: before.body.challenge, recoveryCode: staffFactors.recoveryCodes[0] });
    expect(answered.status).toBe(403);
    expect(answered.body).toEqual(expect.objectContaining({ code: 'sso_required', ssoUrl: ssoUrl(staff) }));
    expect(answered.body.accessToken).toBeUndefined();
    expect(await signIns(staff)).toBe(0);

    const breakGlasses = async () =>
      (
        await t.dataSource.query(`SELECT count(*)::int AS n FROM audit_log WHERE workspace_id = $1 AND action = 'sso.break_glass_signin'`, [owner.workspaceId])
      )[0].n;
    const challenge = await login(owner);
    expect(challenge.body.code).toBe('second_factor_required');
    // A right password alone is no sign-in yet: nothing is recorded until the second factor is answered.
    expect(await breakGlasses()).toBe(0);
    await t.http().post('/auth/login/second-factor').send({ challenge: challenge.body.challenge, recoveryCode: ownerFactors.recoveryCodes[0] }).expect(200);
    expect(await breakGlasses()).toBe(1);
  });

  it('refuses a passkey sign-in 403 sso_required, starting no session, but the enforcing owner’s', async () => {
    const domain = domainName('passkey');
    const owner = await registerUser(t, { email: `boss@${domain}` });
    const staff = await registerUser(t, { email: `staff@${domain}` });
    const ownerKey = await registerPasskey(t, owner);
    const staffKey = await registerPasskey(t, staff);
    await enforceSso(owner, domain);

    const res = await passkeySignIn(t, staffKey);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(expect.objectContaining({ code: 'sso_required', ssoUrl: ssoUrl(staff) }));
    expect(res.body.accessToken).toBeUndefined();
    expect(await signIns(staff)).toBe(0);
    // Refused after the signature was checked: the signature counter it carried is still recorded.
    const [row] = await t.dataSource.query(`SELECT counter::int AS counter FROM passkeys WHERE user_id = $1`, [staff.userId]);
    expect(row.counter).toBe(staffKey.counter);

    expect((await passkeySignIn(t, ownerKey)).status).toBe(200);
  });
});
