import { generateSync } from 'otplib';

import type { TestApp } from './app';
import { bearer } from './identity';
import { SoftAuthenticator } from './soft-authenticator';

/** Turns TOTP on for the session's user, as the dashboard does (enrol, confirm with a current code). */
export async function enrolTotp(t: TestApp, session: { accessToken: string }): Promise<{ secret: string; recoveryCodes: string[] }> {
  const start = await t.http().post('/auth/2fa/totp').set(bearer(session.accessToken)).send({}).expect(200);
  const confirmed = await t
    .http()
    .post('/auth/2fa/totp/confirm')
    .set(bearer(session.accessToken))
    .send({ code: generateSync({ secret: start.body.secret }) })
    .expect(200);
  return { secret: start.body.secret, recoveryCodes: confirmed.body.recoveryCodes };
}

/** Registers a passkey of a software authenticator for the session's user; the authenticator signs in with it later. */
export async function registerPasskey(t: TestApp, session: { accessToken: string }): Promise<SoftAuthenticator> {
  const authenticator = new SoftAuthenticator(t.config.apiBaseUrl);
  const options = await t.http().post('/auth/passkeys/registration-options').set(bearer(session.accessToken)).send({}).expect(200);
  await t
    .http()
    .post('/auth/passkeys/registration')
    .set(bearer(session.accessToken))
    .send({ response: authenticator.register(options.body) })
    .expect(201);
  return authenticator;
}

/** A passwordless passkey sign-in; the answer unchecked, for the caller to expect. */
export async function passkeySignIn(t: TestApp, authenticator: SoftAuthenticator) {
  const options = await t.http().post('/auth/passkeys/authentication-options').send({}).expect(200);
  return t
    .http()
    .post('/auth/passkeys/authentication')
    .send({ response: authenticator.authenticate(options.body) });
}
