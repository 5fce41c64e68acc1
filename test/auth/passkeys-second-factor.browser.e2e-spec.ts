/// <reference lib="dom" />
import { generate } from 'otplib';
import type { BrowserContext, Page } from 'playwright-core';

import { startTestApp, type TestApp } from '../helpers/app';
import { launchBrowser, phonePage } from '../helpers/browser';
import { registerUser, type UserSession } from '../helpers/identity';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

/**
 * A passkey as the second factor after a password (issue 32), with TOTP also on: the
 * sign-in's 401 `second_factor_required` offers `passkey`, and the passkey's answer made
 * by Chromium's virtual authenticator finishes it at POST /auth/login/second-factor.
 * Needs the two-factor routes (area totp) beside the passkeys ones.
 */
describe('A passkey as the second factor, in Chromium with its virtual authenticator (e2e)', () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  let page: Page;
  let user: UserSession;
  let origin: string;
  const errors: string[] = [];

  beforeAll(async () => {
    buildWeb({ quiet: true });
    t = await startTestApp();
    origin = `http://localhost:${t.port}`;
    browser = await launchBrowser();
    user = await registerUser(t, { name: 'Sam Second' });
    ({ context, page } = await phonePage(browser.browser, errors));
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });
  afterEach(() => expect(errors).toEqual([]));

  /** The browser's answer to fresh authentication options, as @simplewebauthn/browser would send it. */
  const passkeyAnswer = () =>
    page.evaluate(async () => {
      const options = (await (
        await fetch('/auth/passkeys/authentication-options', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })
      ).json()) as { challenge: string; rpId: string };
      const bytes = (b64url: string) => Uint8Array.from(atob(b64url.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
      const credential = (await navigator.credentials.get({
        publicKey: { challenge: bytes(options.challenge), rpId: options.rpId, userVerification: 'preferred' },
      })) as PublicKeyCredential & { toJSON(): unknown };
      return credential.toJSON();
    });

  it('signs in with the password, then the passkey as the second factor while TOTP is on too', async () => {
    const bearer = { Authorization: `Bearer ${user.accessToken}` };
    const started = await t.http().post('/auth/2fa/totp').set(bearer).send({});
    expect(started.status).toBe(200);
    const confirmed = await t
      .http()
      .post('/auth/2fa/totp/confirm')
      .set(bearer)
      .send({ code: await generate({ secret: started.body.secret as string }) });
    expect(confirmed.status).toBe(200);

    // Registered with the JWT through the API, the browser making the key: the page only lends its origin.
    const options = await t.http().post('/auth/passkeys/registration-options').set(bearer).send({});
    expect(options.status).toBe(200);
    await page.goto(`${origin}/app/sign-in`);
    const registration = await page.evaluate(
      async (o: { challenge: string; rp: { id: string; name: string }; user: { id: string; name: string; displayName: string } }) => {
        const bytes = (b64url: string) => Uint8Array.from(atob(b64url.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
        const credential = (await navigator.credentials.create({
          publicKey: {
            challenge: bytes(o.challenge),
            rp: o.rp,
            user: { id: bytes(o.user.id), name: o.user.name, displayName: o.user.displayName },
            pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
            authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
          },
        })) as PublicKeyCredential & { toJSON(): unknown };
        return credential.toJSON();
      },
      options.body,
    );
    expect((await t.http().post('/auth/passkeys/registration').set(bearer).send({ response: registration, name: 'Phone' })).status).toBe(201);

    const login = await t.http().post('/auth/login').send({ email: user.email, password: user.password });
    expect(login.status).toBe(401);
    expect(login.body).toMatchObject({ code: 'second_factor_required', challenge: expect.any(String) });
    expect(login.body.methods).toEqual(expect.arrayContaining(['totp', 'recovery_code', 'passkey']));
    expect(login.body.accessToken).toBeUndefined();

    const finished = await t
      .http()
      .post('/auth/login/second-factor')
      .send({ challenge: login.body.challenge, passkey: await passkeyAnswer() });
    expect(finished.status).toBe(200);
    expect(finished.body).toMatchObject({ accessToken: expect.any(String), user: { id: user.userId } });

    // A passkey answer already used, replayed with the next sign-in's challenge, finishes nothing.
    const answer = await passkeyAnswer();
    const again = await t.http().post('/auth/login').send({ email: user.email, password: user.password });
    expect((await t.http().post('/auth/login/second-factor').send({ challenge: again.body.challenge, passkey: answer })).status).toBe(200);
    const third = await t.http().post('/auth/login').send({ email: user.email, password: user.password });
    const replayed = await t.http().post('/auth/login/second-factor').send({ challenge: third.body.challenge, passkey: answer });
    expect(replayed.status).toBeGreaterThanOrEqual(400);
    expect(replayed.body.accessToken).toBeUndefined();
  });
});
