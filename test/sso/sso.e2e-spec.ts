import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { startTestApp, type TestApp } from '../helpers/app';
import { startDnsServer, type TestDnsServer } from '../helpers/dns';
import { addMember, bearer, createApiToken, mailedToken, registerUser, uniqueEmail, type UserSession } from '../helpers/identity';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc';
import { enrolTotp, passkeySignIn, registerPasskey } from '../helpers/second-factors';

/**
 * Single sign-on over OpenID Connect (issue 32), against a real provider (oidc-provider,
 * in its own process) and a real DNS server for the domain claims. The browser's part
 * (following redirects, carrying the provider's cookies) is played here with fetch.
 */
describe('Single sign-on over OIDC (e2e)', () => {
  let t: TestApp;
  let dns: TestDnsServer;
  let idp: TestOidcProvider;
  const CLIENT = { client_id: 'statichost', client_secret: `secret-${randomBytes(8).toString('hex')}` };

  beforeAll(async () => {
    dns = await startDnsServer();
    t = await startTestApp({ env: { DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: '2000', SSO_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    const redirect = `${t.config.apiBaseUrl}/auth/sso/callback`;
    idp = await startOidcProvider([
      { ...CLIENT, redirect_uris: [redirect] },
      { client_id: 'another-client', client_secret: 'another-secret', redirect_uris: [redirect] },
    ]);
  });

  afterAll(async () => {
    await t?.close();
    await idp?.close();
    await dns?.close();
  });

  const domainName = (label: string) => `${label}-${randomBytes(4).toString('hex')}.example`;
  const auth = (u: UserSession) => ({ Authorization: `Bearer ${u.accessToken}`, 'X-Workspace-Id': u.workspaceId });
  const settings = (domains: string[], extra: Record<string, unknown> = {}) => ({
    issuer: idp.issuer,
    clientId: CLIENT.client_id,
    clientSecret: CLIENT.client_secret,
    emailDomains: domains,
    defaultRole: 'viewer',
    enforce: false,
    ...extra,
  });

  /** An owner whose workspace has SSO with `domain` verified through its TXT record. */
  async function workspaceWithSso(domain: string, extra: Record<string, unknown> = {}, owner?: UserSession) {
    owner ??= await registerUser(t);
    const put = await t
      .http()
      .put(`/workspaces/${owner.workspaceId}/sso`)
      .set(auth(owner))
      .send(settings([domain], extra));
    expect(put.status).toBe(200);
    const record = put.body.emailDomains[0].record;
    dns.setTxt(record.name, record.value);
    const verified = await t.http().post(`/workspaces/${owner.workspaceId}/sso/domains/${domain}/verify`).set(auth(owner)).send({});
    expect(verified.body).toEqual({ domain, verified: true });
    return owner;
  }

  /** A minimal cookie jar for one host: what its Set-Cookie headers (`setCookies`) set, and forget with Max-Age=0. */
  function jar() {
    const cookies = new Map<string, string>();
    return {
      header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      take(setCookies: string[]) {
        for (const c of setCookies) {
          const [pair] = c.split(';');
          const eq = pair.indexOf('=');
          if (/;\s*Max-Age=0(;|$)/i.test(c)) cookies.delete(pair.slice(0, eq));
          else cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
        }
      },
    };
  }

  /**
   * The app's cookies in the browser these tests play: what the start sets, carried to the
   * callback as a browser carries them. One browser for the file, as the tests run in turn.
   */
  const browser = jar();
  const setCookies = (res: { headers: Record<string, unknown> }) => (res.headers['set-cookie'] as string[] | undefined) ?? [];

  /**
   * What a browser does between GET /auth/sso/start and the callback: follows the provider's
   * redirects, signs in as `email` on its page, and stops at the redirect back to the app.
   * `tamper` may change the authorization URL before it is followed.
   */
  async function throughProvider(authorizationUrl: string, email: string): Promise<URL> {
    const cookies = jar();
    let url = authorizationUrl;
    let method = 'GET';
    let body: string | undefined;
    for (let hop = 0; hop < 10; hop++) {
      const res = await fetch(url, {
        method,
        body,
        redirect: 'manual',
        headers: { Cookie: cookies.header(), ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
      });
      cookies.take(res.headers.getSetCookie());
      if (res.status === 200 && /\/interaction\//.test(url)) {
        method = 'POST';
        body = new URLSearchParams({ email }).toString();
        continue;
      }
      expect([302, 303]).toContain(res.status);
      const next = new URL(res.headers.get('location')!, url);
      if (next.pathname === '/auth/sso/callback') return next;
      url = next.href;
      method = 'GET';
      body = undefined;
    }
    throw new Error('the provider never sent the browser back');
  }

  async function start(query: Record<string, string>) {
    const res = await t.http().get('/auth/sso/start').query(query);
    expect(res.status).toBe(302);
    browser.take(setCookies(res));
    return new URL(res.headers.location);
  }

  /**
   * The provider's redirect back, followed by the browser with the cookies it holds (and
   * keeps what the answer sets), or, given `cookie`, by another browser whose Cookie header
   * is that ('' for none).
   */
  async function callback(url: URL, cookie?: string) {
    const header = cookie ?? browser.header();
    const req = t.http().get(`${url.pathname}${url.search}`);
    const res = await (header ? req.set('Cookie', header) : req);
    if (cookie === undefined) browser.take(setCookies(res));
    return res;
  }

  /** The session the callback's cookie holds: refreshed as the dashboard does on load. */
  async function sessionOf(res: { headers: Record<string, unknown> }) {
    const cookies = (res.headers['set-cookie'] as string[] | undefined) ?? [];
    const refresh = cookies.find((c) => c.startsWith('statichost_refresh=') && !c.startsWith('statichost_refresh=;'));
    expect(refresh).toBeDefined();
    const refreshed = await t.http().post('/auth/refresh').set('X-Session-Mode', 'cookie').set('Cookie', refresh!.split(';')[0]).send({});
    expect(refreshed.status).toBe(200);
    return refreshed.body.accessToken as string;
  }

  const auditActions = async (workspaceId: string): Promise<string[]> =>
    // Without sign-up's `workspace.created`, which every owner's log starts with.
    (await t.dataSource.query(`SELECT action FROM audit_log WHERE workspace_id = $1 AND action <> 'workspace.created' ORDER BY seq`, [workspaceId])).map(
      (r: { action: string }) => r.action,
    );

  describe('settings', () => {
    it('answers 404 sso_not_configured before anything is set up', async () => {
      const owner = await registerUser(t);
      const res = await t.http().get(`/workspaces/${owner.workspaceId}/sso`).set(auth(owner));
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('sso_not_configured');
    });

    it('refuses bad settings with a 400 naming the field, and saves nothing', async () => {
      const owner = await registerUser(t);
      const put = (body: Record<string, unknown>) => t.http().put(`/workspaces/${owner.workspaceId}/sso`).set(auth(owner)).send(body);
      const { clientSecret: _omitted, ...withoutSecret } = settings([domainName('corp')]);
      const noSecret = await put(withoutSecret);
      expect(noSecret.status).toBe(400);
      expect(noSecret.body).toMatchObject({ code: 'client_secret_required', message: expect.stringContaining('clientSecret') });
      const unreachable = await put(settings([domainName('corp')], { issuer: 'http://127.0.0.1:9' }));
      expect(unreachable.status).toBe(400);
      expect(unreachable.body).toMatchObject({ code: 'sso_discovery_failed', message: expect.stringMatching(/^issuer: /) });
      // An issuer answering a discovery document past 1 MB: refused, not read into memory whole.
      const huge = createServer((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let sent = 0;
        const more = () => {
          while (sent < 4 * 1024 * 1024) {
            sent += chunk.length;
            if (!res.write(chunk)) return res.once('drain', more);
          }
          res.end('{}');
        };
        more();
      });
      await new Promise<void>((resolve) => huge.listen(0, '127.0.0.1', resolve));
      try {
        const big = await put(settings([domainName('corp')], { issuer: `http://127.0.0.1:${(huge.address() as AddressInfo).port}` }));
        expect(big.status).toBe(400);
        expect(big.body).toMatchObject({ code: 'sso_discovery_failed', message: expect.stringContaining('larger than 1 MB') });
      } finally {
        huge.closeAllConnections();
        await new Promise<void>((resolve) => huge.close(() => resolve()));
      }
      const badDomain = await put(settings(['not a domain']));
      expect(badDomain.status).toBe(400);
      expect(badDomain.body.message).toContain('emailDomains[0]');
      const badRole = await put(settings([domainName('corp')], { defaultRole: 'owner' }));
      expect(badRole.status).toBe(400);
      expect(badRole.body.message).toContain('defaultRole');
      expect((await t.http().get(`/workspaces/${owner.workspaceId}/sso`).set(auth(owner))).status).toBe(404);
    });

    it('is for the owner to change and owners and admins to read', async () => {
      const owner = await registerUser(t);
      const admin = await registerUser(t);
      await addMember(t, owner, admin, 'admin');
      const asAdmin = { Authorization: `Bearer ${admin.accessToken}`, 'X-Workspace-Id': owner.workspaceId };
      const refused = await t
        .http()
        .put(`/workspaces/${owner.workspaceId}/sso`)
        .set(asAdmin)
        .send(settings([domainName('corp')]));
      expect(refused.status).toBe(403);
      await t
        .http()
        .put(`/workspaces/${owner.workspaceId}/sso`)
        .set(auth(owner))
        .send(settings([domainName('corp')]))
        .expect(200);
      expect((await t.http().get(`/workspaces/${owner.workspaceId}/sso`).set(asAdmin)).status).toBe(200);
    });

    it('never returns the client secret, stores it sealed, and keeps it when a later PUT omits it', async () => {
      const owner = await registerUser(t);
      const domain = domainName('corp');
      const res = await t
        .http()
        .put(`/workspaces/${owner.workspaceId}/sso`)
        .set(auth(owner))
        .send(settings([domain]));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        workspaceId: owner.workspaceId,
        issuer: idp.issuer,
        clientId: 'statichost',
        clientSecretSet: true,
        redirectUri: `${t.config.apiBaseUrl}/auth/sso/callback`,
        emailDomains: [
          { domain, verified: false, verifiedAt: null, record: { name: `_statichost-challenge.${domain}`, value: expect.stringMatching(/^[0-9a-f]{32}$/) } },
        ],
        defaultRole: 'viewer',
        enforce: false,
        updatedAt: expect.any(String),
      });
      expect(JSON.stringify(res.body)).not.toContain(CLIENT.client_secret);
      const [row] = await t.dataSource.query(`SELECT * FROM sso_connections WHERE workspace_id = $1`, [owner.workspaceId]);
      expect(JSON.stringify(row)).not.toContain(CLIENT.client_secret);
      expect(row.secret_ciphertext.toString('latin1')).not.toContain(CLIENT.client_secret);
      const { clientSecret: _omitted, ...rest } = settings([domain], { defaultRole: 'admin' });
      const again = await t.http().put(`/workspaces/${owner.workspaceId}/sso`).set(auth(owner)).send(rest);
      expect(again.status).toBe(200);
      expect(again.body.defaultRole).toBe('admin');
      // The same TXT value: a domain kept across PUTs keeps its token.
      expect(again.body.emailDomains[0].record.value).toBe(res.body.emailDomains[0].record.value);
      expect(await auditActions(owner.workspaceId)).toEqual(['sso.updated', 'sso.updated']);
    });
  });

  describe('domain claims', () => {
    it('claims a domain only once its TXT record is there, and for one workspace only', async () => {
      const owner = await registerUser(t);
      const domain = domainName('claim');
      const put = await t
        .http()
        .put(`/workspaces/${owner.workspaceId}/sso`)
        .set(auth(owner))
        .send(settings([domain]));
      // Not verified: nobody signs in with SSO for it yet.
      const early = await t
        .http()
        .get('/auth/sso/start')
        .query({ email: `ada@${domain}` });
      expect(early.status).toBe(404);
      expect(early.body.code).toBe('sso_not_configured');
      const verify = () => t.http().post(`/workspaces/${owner.workspaceId}/sso/domains/${domain}/verify`).set(auth(owner)).send({});
      dns.setTxt(put.body.emailDomains[0].record.name, 'something-else');
      const absent = await verify();
      expect(absent.status).toBe(200);
      expect(absent.body).toEqual({ domain, verified: false, reason: expect.stringContaining('something-else') });
      dns.setTxt(put.body.emailDomains[0].record.name, put.body.emailDomains[0].record.value);
      expect((await verify()).body).toEqual({ domain, verified: true });
      expect((await start({ email: `ada@${domain}` })).origin).toBe(idp.issuer);
      expect(await auditActions(owner.workspaceId)).toEqual(['sso.updated', 'sso.domain_verified']);

      // Another workspace cannot list it any more, nor verify it.
      const rival = await registerUser(t);
      const taken = await t
        .http()
        .put(`/workspaces/${rival.workspaceId}/sso`)
        .set(auth(rival))
        .send(settings([domain]));
      expect(taken.status).toBe(409);
      expect(taken.body.code).toBe('domain_claimed');
      const unlisted = await t.http().post(`/workspaces/${rival.workspaceId}/sso/domains/${domain}/verify`).set(auth(rival)).send({});
      expect(unlisted.status).toBe(404);
    });
  });

  describe('sign-in', () => {
    it('starts with PKCE (S256), state and nonce, and signs a first-time person in: account, membership with the default role, a cookie session', async () => {
      const domain = domainName('first');
      const owner = await workspaceWithSso(domain);
      const email = `grace@${domain}`;
      const authorization = await start({ email });
      expect(authorization.origin).toBe(idp.issuer);
      const p = authorization.searchParams;
      expect(p.get('client_id')).toBe('statichost');
      expect(p.get('code_challenge_method')).toBe('S256');
      expect(p.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(p.get('state')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      expect(p.get('nonce')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      expect(p.get('redirect_uri')).toBe(`${t.config.apiBaseUrl}/auth/sso/callback`);

      const back = await callback(await throughProvider(authorization.href, email));
      expect(back.status).toBe(302);
      expect(back.headers.location).toBe('/app/');
      const accessToken = await sessionOf(back);
      const me = await t.http().get('/users/me').set('Authorization', `Bearer ${accessToken}`);
      expect(me.body).toMatchObject({ email });
      const workspaces = await t.http().get('/workspaces').set('Authorization', `Bearer ${accessToken}`);
      expect(workspaces.body.data).toEqual([expect.objectContaining({ id: owner.workspaceId, role: 'viewer' })]);
      expect(await auditActions(owner.workspaceId)).toEqual(['sso.updated', 'sso.domain_verified', 'member.joined', 'user.signed_in']);

      // The second time: the same account, no second membership.
      const again = await callback(await throughProvider((await start({ workspace: owner.workspaceId })).href, email));
      expect(again.headers.location).toBe('/app/');
      const [{ count }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM users WHERE email = $1`, [email]);
      expect(count).toBe(1);
      expect((await auditActions(owner.workspaceId)).filter((a) => a === 'member.joined')).toHaveLength(1);
    });

    /** The sign-in's own cookie, deleted: whatever the outcome of a callback, the browser forgets it. */
    const FORGET = 'statichost_sso=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax';

    const refused = (res: { status: number; headers: Record<string, unknown> }, code: string) => {
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(`/app/sign-in?sso_error=${code}`);
      // No session cookie, no marker: only the sign-in's cookie, deleted.
      expect(res.headers['set-cookie']).toEqual([FORGET]);
    };

    it('refuses a forged state, and a state used once already', async () => {
      const domain = domainName('state');
      await workspaceWithSso(domain);
      const back = await throughProvider((await start({ email: `ada@${domain}` })).href, `ada@${domain}`);
      // Sent with this browser's cookie each time, so the state alone is what is refused.
      const bound = browser.header();
      const forged = new URL(back);
      forged.searchParams.set('state', 'forged-state-0123456789abcdef');
      refused(await callback(forged, bound), 'invalid_state');
      const signedIn = await callback(back);
      expect(signedIn.headers.location).toBe('/app/');
      expect(setCookies(signedIn)[0]).toBe(FORGET);
      refused(await callback(back, bound), 'invalid_state');
    });

    it('refuses a callback in a browser that did not start the sign-in (login CSRF), and signs nobody in', async () => {
      const domain = domainName('csrf');
      await workspaceWithSso(domain);
      const mallory = `mallory@${domain}`;
      const raw = await t.http().get('/auth/sso/start').query({ email: mallory });
      expect(raw.headers['cache-control']).toBe('no-store');
      expect(setCookies(raw)).toEqual([expect.stringMatching(/^statichost_sso=[A-Za-z0-9_-]{43}; Max-Age=600; Path=\/; HttpOnly; SameSite=Lax$/)]);

      // The attacker starts a sign-in and finishes the provider's step as himself; the victim's
      // browser is sent his callback URL: with no cookie, with a value of its own, with the
      // cookie of a sign-in it started itself.
      const victimsOwn = async () => {
        await start({ email: `victim@${domain}` });
        return browser.header();
      };
      for (const cookie of ['', `statichost_sso=${randomBytes(32).toString('base64url')}`, await victimsOwn()]) {
        const back = await throughProvider((await start({ email: mallory })).href, mallory);
        refused(await callback(back, cookie), 'invalid_state');
      }
      expect(t.logs.join('')).toMatch(/refused \(invalid_state\): the callback came to a browser that did not start it/);
      const [{ count }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM users WHERE email = $1`, [mallory]);
      expect(count).toBe(0);

      // In the browser that started it, the same flow signs in.
      const own = await callback(await throughProvider((await start({ email: mallory })).href, mallory));
      expect(own.headers.location).toBe('/app/');
      expect(await sessionOf(own)).toEqual(expect.any(String));
    });

    it('refuses a replayed code, even with a fresh state', async () => {
      const domain = domainName('replay');
      await workspaceWithSso(domain);
      const first = await throughProvider((await start({ email: `ada@${domain}` })).href, `ada@${domain}`);
      expect((await callback(first)).headers.location).toBe('/app/');
      const fresh = await start({ email: `ada@${domain}` });
      const replay = new URL(first);
      replay.searchParams.set('state', fresh.searchParams.get('state')!);
      refused(await callback(replay), 'code_rejected');
    });

    it('refuses an ID token whose nonce is not the one this sign-in sent', async () => {
      const domain = domainName('nonce');
      await workspaceWithSso(domain);
      const authorization = await start({ email: `ada@${domain}` });
      authorization.searchParams.set('nonce', 'a-nonce-the-attacker-chose-0123456789');
      refused(await callback(await throughProvider(authorization.href, `ada@${domain}`)), 'invalid_id_token');
      // Refused for its nonce, not for anything else.
      expect(t.logs.join('')).toMatch(/refused \(invalid_id_token\): [^\n]*\(claim nonce\)/);
    });

    it("refuses an ID token made for another client, though the provider's key signed it", async () => {
      const domain = domainName('aud');
      await workspaceWithSso(domain);
      const back = await throughProvider((await start({ email: `ada@${domain}` })).href, `ada@${domain}`);
      await idp.setMischief('foreign-id-token');
      try {
        refused(await callback(back), 'invalid_id_token');
        // Refused for its audience: the provider's signature on it is good.
        expect(t.logs.join('')).toMatch(/refused \(invalid_id_token\): [^\n]*\(claim aud\)/);
      } finally {
        await idp.setMischief(null);
      }
    });

    it('refuses an email the provider did not verify, and one outside the verified domains', async () => {
      const domain = domainName('mail');
      await workspaceWithSso(domain);
      await idp.setAccount({ email: `unverified@${domain}`, email_verified: false });
      refused(await callback(await throughProvider((await start({ email: `unverified@${domain}` })).href, `unverified@${domain}`)), 'email_not_verified');
      const other = `eve-${randomBytes(3).toString('hex')}@gmail.example`;
      refused(await callback(await throughProvider((await start({ email: `x@${domain}` })).href, other)), 'email_not_allowed');
      const [{ count }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM users WHERE email IN ($1, $2)`, [`unverified@${domain}`, other]);
      expect(count).toBe(0);
    });
  });

  describe('an account registered at the address but never verified', () => {
    it('is taken back at the SSO sign-in: its holder’s sessions, access JWTs, passkeys, TOTP, recovery codes and mailed links all end', async () => {
      const domain = domainName('squat');
      const owner = await workspaceWithSso(domain);
      const email = `x@${domain}`;
      // Someone registered the company's address first (a session at once, the address unverified) ...
      const squatter = await registerUser(t, { email });
      const asSquatter = bearer(squatter.accessToken);
      // ... added a passkey and TOTP ...
      const authenticator = await registerPasskey(t, squatter);
      const confirmed = await enrolTotp(t, squatter);
      expect(confirmed.recoveryCodes.length).toBeGreaterThan(0);
      // ... asked to move the account to a mailbox of theirs ...
      const hideout = uniqueEmail('hideout');
      await t.http().patch('/users/me').set(asSquatter).send({ email: hideout }).expect(200);
      const moveToken = await mailedToken(t, hideout);
      expect(moveToken).toBeDefined();
      // ... made an API token ...
      const apiToken = (await createApiToken(t, squatter, { scopes: ['deploy', 'read', 'admin'] })).token;
      await t.http().get('/v1/me').set(bearer(apiToken)).expect(200);
      // ... and holds a live session: a refresh token and an access JWT that work.
      const held = await t.http().post('/auth/refresh').send({ refreshToken: squatter.refreshToken }).expect(200);
      await t.http().get('/auth/2fa').set(bearer(held.body.accessToken)).expect(200);

      // The person who reads that mail signs in through the company's provider.
      const back = await callback(await throughProvider((await start({ email })).href, email));
      expect(back.headers.location).toBe('/app/');
      const accessToken = await sessionOf(back);

      expect((await t.http().post('/auth/refresh').send({ refreshToken: held.body.refreshToken })).status).toBe(401);
      expect((await t.http().get('/auth/2fa').set(bearer(held.body.accessToken))).status).toBe(401);
      expect((await t.http().get('/users/me').set(asSquatter)).status).toBe(401);
      expect((await t.http().get('/v1/me').set(bearer(apiToken))).status).toBe(401);
      expect((await passkeySignIn(t, authenticator)).status).toBe(401);
      const moved = await t.http().post('/auth/verify-email').send({ token: moveToken });
      expect(moved.status).toBe(400);
      expect(moved.body.code).toBe('token_used');
      const [left] = await t.dataSource.query(
        `SELECT (SELECT count(*)::int FROM recovery_codes WHERE user_id = $1) AS codes,
                (SELECT count(*)::int FROM account_tokens WHERE user_id = $1 AND used_at IS NULL) AS links`,
        [squatter.userId],
      );
      expect(left).toEqual({ codes: 0, links: 0 });

      // The account is the provider's person's now: theirs, in the workspace, with no factor of someone else's.
      const me = await t.http().get('/users/me').set(bearer(accessToken)).expect(200);
      expect(me.body).toMatchObject({ id: squatter.userId, email, emailVerified: true });
      const twoFactor = await t.http().get('/auth/2fa').set(bearer(accessToken)).expect(200);
      expect(twoFactor.body).toEqual({ totp: { enabled: false, enabledAt: null }, recoveryCodesLeft: 0, passkeys: 0, methods: [] });
      const workspaces = await t.http().get('/workspaces').set(bearer(accessToken));
      expect(workspaces.body.data).toContainEqual(expect.objectContaining({ id: owner.workspaceId, role: 'viewer' }));
      // Each removal is in the account's log.
      expect(await auditActions(squatter.workspaceId)).toEqual(expect.arrayContaining(['session.ended', 'passkey.deleted', 'two_factor.disabled']));
    });
  });

  describe('enforce', () => {
    it('refuses password sign-in for the domain with 403 sso_required after the password check, but the owner who enforced it (audited)', async () => {
      const domain = domainName('enforced');
      const owner = await registerUser(t, { email: `boss@${domain}` });
      const staff = await registerUser(t, { email: `staff@${domain}` });
      await workspaceWithSso(domain, { enforce: true }, owner);

      const wrong = await t.http().post('/auth/login').send({ email: staff.email, password: 'not the password' });
      expect(wrong.status).toBe(401);
      const res = await t.http().post('/auth/login').send({ email: staff.email, password: staff.password });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'sso_required', ssoUrl: `${t.config.apiBaseUrl}/auth/sso/start?email=${encodeURIComponent(staff.email)}` });
      expect(res.body.accessToken).toBeUndefined();

      const breakGlass = await t.http().post('/auth/login').send({ email: owner.email, password: owner.password });
      expect(breakGlass.status).toBe(200);
      expect(await auditActions(owner.workspaceId)).toContain('sso.break_glass_signin');

      // Other domains sign in with passwords as before.
      const outsider = await registerUser(t);
      expect((await t.http().post('/auth/login').send({ email: outsider.email, password: outsider.password })).status).toBe(200);
      // Removing SSO opens password sign-in again.
      await t.http().delete(`/workspaces/${owner.workspaceId}/sso`).set(auth(owner)).expect(204);
      expect((await t.http().post('/auth/login').send({ email: staff.email, password: staff.password })).status).toBe(200);
      expect(await auditActions(owner.workspaceId)).toContain('sso.deleted');
    });

    it('the break glass is the enforcing owner’s only while they are an owner: demoted, they are refused as everyone is', async () => {
      const domain = domainName('glass');
      const owner = await registerUser(t, { email: `founder@${domain}` });
      await workspaceWithSso(domain, { enforce: true }, owner);
      // A second owner (outside the domain) takes over and demotes the one who enforced it (who left the company).
      const successor = await registerUser(t);
      await addMember(t, owner, successor, 'owner');
      const asSuccessor = { Authorization: `Bearer ${successor.accessToken}`, 'X-Workspace-Id': owner.workspaceId };
      const members = (await t.http().get(`/workspaces/${owner.workspaceId}/members`).set(asSuccessor).expect(200)).body.data as {
        id: string;
        userId: string;
      }[];
      const founder = members.find((m) => m.userId === owner.userId)!;
      await t.http().patch(`/workspaces/${owner.workspaceId}/members/${founder.id}`).set(asSuccessor).send({ role: 'admin' }).expect(200);

      const res = await t.http().post('/auth/login').send({ email: owner.email, password: owner.password });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('sso_required');
    });

    it.each(['demoted', 'removed'] as const)(
      'the break-glass owner %s: the password sessions they signed in with past the enforcement end with the change',
      async (change) => {
        const domain = domainName(`glass-${change}`);
        const owner = await registerUser(t, { email: `founder@${domain}` });
        await workspaceWithSso(domain, { enforce: true }, owner);
        // Signed in with the password past the enforcement (the break glass), in a session of its own.
        const breakGlass = (await t.http().post('/auth/login').send({ email: owner.email, password: owner.password }).expect(200)).body;
        const successor = await registerUser(t);
        await addMember(t, owner, successor, 'owner');
        const asSuccessor = { Authorization: `Bearer ${successor.accessToken}`, 'X-Workspace-Id': owner.workspaceId };
        const members = (await t.http().get(`/workspaces/${owner.workspaceId}/members`).set(asSuccessor).expect(200)).body.data as {
          id: string;
          userId: string;
        }[];
        const founder = members.find((m) => m.userId === owner.userId)!;
        await t.http().get('/auth/2fa').set(bearer(breakGlass.accessToken)).expect(200);

        if (change === 'demoted') {
          await t.http().patch(`/workspaces/${owner.workspaceId}/members/${founder.id}`).set(asSuccessor).send({ role: 'viewer' }).expect(200);
        } else {
          await t.http().delete(`/workspaces/${owner.workspaceId}/members/${founder.id}`).set(asSuccessor).expect(204);
        }

        expect((await t.http().get('/auth/2fa').set(bearer(breakGlass.accessToken))).status).toBe(401);
        expect((await t.http().post('/auth/refresh').send({ refreshToken: breakGlass.refreshToken })).status).toBe(401);
        expect((await t.http().post('/auth/refresh').send({ refreshToken: owner.refreshToken })).status).toBe(401);
        // The successor's own sessions, and a demoted owner elsewhere, are not touched.
        await t.http().get('/auth/2fa').set(bearer(successor.accessToken)).expect(200);
        expect(await auditActions(owner.workspaceId)).toContain('session.ended');
      },
    );

    it('an owner at the domain who did not enforce it, demoted, keeps their sessions (only the break glass goes)', async () => {
      const domain = domainName('glass-other');
      const owner = await registerUser(t, { email: `founder@${domain}` });
      // A colleague at the domain, made an owner before SSO was enforced ...
      const colleague = await registerUser(t, { email: `cofounder@${domain}` });
      await addMember(t, owner, colleague, 'owner');
      await workspaceWithSso(domain, { enforce: true }, owner);
      // ... signs in through the provider, as enforcement now asks.
      const accessToken = await sessionOf(await callback(await throughProvider((await start({ email: colleague.email })).href, colleague.email)));
      const asOwner = { Authorization: `Bearer ${owner.accessToken}`, 'X-Workspace-Id': owner.workspaceId };
      const members = (await t.http().get(`/workspaces/${owner.workspaceId}/members`).set(asOwner).expect(200)).body.data as { id: string; userId: string }[];
      const other = members.find((m) => m.userId === colleague.userId)!;
      await t.http().patch(`/workspaces/${owner.workspaceId}/members/${other.id}`).set(asOwner).send({ role: 'admin' }).expect(200);
      await t.http().get('/auth/2fa').set(bearer(accessToken)).expect(200);
    });

    it('refuses a password registration at an enforced domain (403 sso_required, nothing created); other domains register as before', async () => {
      const domain = domainName('closed');
      await workspaceWithSso(domain, { enforce: true });
      const email = `newhire@${domain}`;
      const res = await t.http().post('/auth/register').send({ email, password: 'a long enough password', name: 'New Hire' });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'sso_required', ssoUrl: `${t.config.apiBaseUrl}/auth/sso/start?email=${encodeURIComponent(email)}` });
      expect(res.body.accessToken).toBeUndefined();
      expect(await t.dataSource.query('SELECT id FROM users WHERE email = $1', [email])).toEqual([]);
      await registerUser(t);
    });

    it('ends the sessions of an account moved onto an enforced domain by an email change: its password no longer signs in there', async () => {
      const domain = domainName('moved-in');
      await workspaceWithSso(domain, { enforce: true });
      const mover = await registerUser(t);
      const moved = `mover@${domain}`;
      await t.http().patch('/users/me').set(bearer(mover.accessToken)).send({ email: moved }).expect(200);
      const token = await mailedToken(t, moved);
      await t.http().post('/auth/verify-email').send({ token }).expect(200);
      expect((await t.http().get('/auth/sessions').set(bearer(mover.accessToken))).status).toBe(401);
      expect((await t.http().post('/auth/refresh').send({ refreshToken: mover.refreshToken })).status).toBe(401);
      const login = await t.http().post('/auth/login').send({ email: moved, password: mover.password });
      expect(login.body.code).toBe('sso_required');
    });

    it('holds an internationalised domain in either form: an account registered with the Unicode spelling is refused its password too', async () => {
      const unicode = `bücher-${randomBytes(4).toString('hex')}.example`;
      const owner = await registerUser(t);
      const put = await t
        .http()
        .put(`/workspaces/${owner.workspaceId}/sso`)
        .set(auth(owner))
        .send(settings([unicode], { enforce: true }))
        .expect(200);
      const [{ domain, record }] = put.body.emailDomains;
      expect(domain).toMatch(/^xn--/);
      // Registered before the domain was verified (enforcement begins then; a registration after it is refused).
      const staff = [await registerUser(t, { email: `staff@${unicode}` }), await registerUser(t, { email: `other@${domain}` })];
      dns.setTxt(record.name, record.value);
      await t.http().post(`/workspaces/${owner.workspaceId}/sso/domains/${domain}/verify`).set(auth(owner)).send({}).expect(200);

      // Enforcement began with the verification: the sessions open at the domain ended, whichever spelling.
      for (const { email, accessToken } of staff) {
        expect({ email, status: (await t.http().get('/auth/sessions').set(bearer(accessToken))).status }).toEqual({ email, status: 401 });
      }
      for (const { email, password } of staff) {
        const res = await t.http().post('/auth/login').send({ email, password });
        expect({ email, status: res.status, code: res.body.code }).toEqual({ email, status: 403, code: 'sso_required' });
      }
      for (const email of [`new@${unicode}`, `new@${domain}。`]) {
        const registered = await t.http().post('/auth/register').send({ email, password: 'a long enough password', name: 'New' });
        expect({ email, code: registered.body.code }).toEqual({ email, code: 'sso_required' });
      }
    });

    it('ends the sessions already open at an enforced domain when enforcement begins (on verifying, or on turning it on), but the enforcing owner’s', async () => {
      const probe = (u: UserSession) => t.http().get('/auth/sessions').set(auth(u));
      const refresh = (u: UserSession) => t.http().post('/auth/refresh').send({ refreshToken: u.refreshToken });

      // Enforced from the first PUT: it takes effect when the domain is verified.
      const first = domainName('enforced-late');
      const boss = await registerUser(t, { email: `boss@${first}` });
      const staff = await registerUser(t, { email: `staff@${first}` });
      const outsider = await registerUser(t);
      await probe(staff).expect(200);
      await workspaceWithSso(first, { enforce: true }, boss);
      expect((await probe(staff)).status).toBe(401);
      expect((await refresh(staff)).status).toBe(401);
      await probe(boss).expect(200);
      await probe(outsider).expect(200);
      const ended = await t.dataSource.query(
        `SELECT count(*)::int AS n FROM audit_log WHERE action = 'session.ended' AND actor_id IS DISTINCT FROM $1 AND target_id = $2`,
        [staff.userId, JSON.parse(Buffer.from(staff.accessToken.split('.')[1], 'base64url').toString()).sid],
      );
      expect(ended[0].n).toBeGreaterThanOrEqual(1);

      // Verified first, enforced later by a second PUT; a third PUT that keeps it on ends nothing more.
      const second = domainName('enforced-later');
      const owner = await registerUser(t, { email: `owner@${second}` });
      const member = await registerUser(t, { email: `member@${second}` });
      await workspaceWithSso(second, {}, owner);
      await probe(member).expect(200);
      const put = (extra: Record<string, unknown>) =>
        t
          .http()
          .put(`/workspaces/${owner.workspaceId}/sso`)
          .set(auth(owner))
          .send(settings([second], extra));
      await put({ enforce: true }).expect(200);
      expect((await probe(member)).status).toBe(401);
      await probe(owner).expect(200);
      const again = await t.http().post('/auth/login').send({ email: owner.email, password: owner.password }).expect(200);
      // A session opened since, the only way left for the domain (through the provider), stays too.
      const laterEmail = `later@${second}`;
      expect((await t.http().post('/auth/register').send({ email: laterEmail, password: 'a long enough password', name: 'Later' })).status).toBe(403);
      const later = await sessionOf(await callback(await throughProvider((await start({ workspace: owner.workspaceId })).href, laterEmail)));
      await put({ enforce: true }).expect(200);
      await probe({ ...owner, accessToken: again.body.accessToken }).expect(200);
      await t
        .http()
        .get('/auth/sessions')
        .set({ Authorization: `Bearer ${later}` })
        .expect(200);
    });
  });
});
