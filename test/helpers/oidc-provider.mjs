// A real OpenID provider for the SSO tests (issue 32): oidc-provider, the certified
// implementation, in its own process (it and its dependencies are ESM). Its login and
// consent are one small page of our own (the library's dev interactions are not for use
// with code that checks what the person typed): the account is the email given there.
//
// Started by test/helpers/oidc.ts with one JSON argument: { clients: [...] }. Prints
// `{"issuer": "..."}` on stdout once it listens. Control routes for the tests:
//   POST /__control/accounts  { email, email_verified, name }   the account an email signs in as
//   POST /__control/mischief  { mode: 'foreign-id-token' | null } rewrite the next token answers
import { createServer } from 'node:http';

import * as jose from 'jose';
import Provider from 'oidc-provider';

const { clients } = JSON.parse(process.argv[2] ?? '{}');
const accounts = new Map();
let mischief = null;

const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
const jwk = { ...(await jose.exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients,
  jwks: { keys: [jwk] },
  cookies: { keys: ['oidc-test-cookie-key'] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  // The claims in the ID token itself, as most enterprise providers send them.
  conformIdTokenClaims: false,
  features: { devInteractions: { enabled: false } },
  pkce: { required: () => true },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  async findAccount(_ctx, sub) {
    const account = accounts.get(sub) ?? { email: sub, email_verified: true, name: sub };
    return { accountId: sub, claims: async () => ({ sub, email: account.email, email_verified: account.email_verified, name: account.name }) };
  },
});
provider.on('server_error', (_ctx, err) => console.error('oidc-provider server_error', err));

// An ID token signed by this provider's own key but for another client: what a relying
// party that does not check `aud` would take from anyone who signed in elsewhere.
provider.use(async (ctx, next) => {
  await next();
  if (mischief === 'foreign-id-token' && ctx.path === '/token' && ctx.body && typeof ctx.body === 'object' && ctx.body.id_token) {
    const claims = jose.decodeJwt(ctx.body.id_token);
    ctx.body.id_token = await new jose.SignJWT({ ...claims, aud: 'another-client', azp: 'another-client' })
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .sign(privateKey);
  }
});

const callback = provider.callback();

const readBody = (req) =>
  new Promise((resolve) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => resolve(data));
  });

const escape = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

server.on('request', async (req, res) => {
  try {
    const url = new URL(req.url, issuer);
    if (url.pathname.startsWith('/__control/') && req.method === 'POST') {
      const body = JSON.parse((await readBody(req)) || '{}');
      if (url.pathname === '/__control/accounts') accounts.set(body.email, body);
      if (url.pathname === '/__control/mischief') mischief = body.mode ?? null;
      res.writeHead(204).end();
      return;
    }
    const match = /^\/interaction\/([^/]+)$/.exec(url.pathname);
    if (match && req.method === 'GET') {
      const details = await provider.interactionDetails(req, res);
      const hint = details.params.login_hint ?? '';
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test identity provider</title></head>
<body><main><h1>Sign in to the test identity provider</h1>
<p>${escape(details.params.client_id)} asks for: ${escape(details.params.scope)}</p>
<form method="post" action="/interaction/${escape(details.uid)}">
<label for="email">Email</label> <input id="email" name="email" type="email" value="${escape(hint)}" required>
<button type="submit">Sign in and allow</button>
</form></main></body></html>`);
      return;
    }
    if (match && req.method === 'POST') {
      const details = await provider.interactionDetails(req, res);
      const email = new URLSearchParams(await readBody(req)).get('email');
      const grant = new provider.Grant({ accountId: email, clientId: details.params.client_id });
      grant.addOIDCScope(details.params.scope);
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { login: { accountId: email }, consent: { grantId } }, { mergeWithLastSubmission: false });
      return;
    }
    callback(req, res);
  } catch (err) {
    console.error(err);
    if (!res.headersSent) res.writeHead(500).end(String(err));
  }
});

process.stdout.write(`${JSON.stringify({ issuer })}\n`);
