import { decodeProtectedHeader, jwtVerify } from 'jose';

import { SIGNATURE_LIFETIME_SECONDS, signProxyRequest } from './signature';

describe('signProxyRequest (X-Nf-Sign)', () => {
  const key = new TextEncoder().encode('the project secret');

  it('is an HS256 JWS with Netlify’s claims, issuer netlify, valid for 5 minutes, checked with the secret', async () => {
    const now = Math.floor(Date.now() / 1000);
    const jws = await signProxyRequest('the project secret', { siteId: 'proj_1', siteUrl: 'https://shop.sites.example', context: 'production' }, now);
    expect(decodeProtectedHeader(jws).alg).toBe('HS256');
    const { payload } = await jwtVerify(jws, key, { issuer: 'netlify', algorithms: ['HS256'] });
    expect(payload).toEqual({
      netlify_id: 'proj_1',
      site_url: 'https://shop.sites.example',
      context: 'production',
      deploy_context: 'production',
      iss: 'netlify',
      iat: now,
      exp: now + SIGNATURE_LIFETIME_SECONDS,
    });
  });

  it('does not verify under another secret, nor once expired', async () => {
    const jws = await signProxyRequest('the project secret', { siteId: 'p', siteUrl: 'u', context: 'deploy-preview' });
    await expect(jwtVerify(jws, new TextEncoder().encode('another secret'))).rejects.toThrow();
    const old = await signProxyRequest('the project secret', { siteId: 'p', siteUrl: 'u', context: 'production' }, 1_000_000);
    await expect(jwtVerify(old, key)).rejects.toThrow(/exp/);
  });
});
