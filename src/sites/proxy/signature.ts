import { SignJWT } from 'jose';

/** How long a signature is good for: Netlify's own (5 minutes, as its CLI signs them). */
export const SIGNATURE_LIFETIME_SECONDS = 300;

export interface SignatureClaims {
  /** The project's id: Netlify's site id. */
  siteId: string;
  /** The site's public address (`https://<slug>.<SITES_DOMAIN>`). */
  siteUrl: string;
  /** `production` on the live site, `deploy-preview` on a preview address. */
  context: 'production' | 'deploy-preview';
}

/**
 * The `X-Nf-Sign` value of a `Sign=NAME` proxy rule: a JWS (HS256) keyed with the value of
 * the project's environment variable NAME, with the claims Netlify documents
 * (`netlify_id`, `site_url`, `context`; its CLI also writes `deploy_context`), issuer
 * `netlify`, `iat` and `exp` (5 minutes): an origin written for Netlify checks it
 * unchanged (`jwt.verify(header, secret, { issuer: 'netlify' })`).
 */
export function signProxyRequest(secret: string, claims: SignatureClaims, nowSeconds = Math.floor(Date.now() / 1000)): Promise<string> {
  return new SignJWT({ netlify_id: claims.siteId, site_url: claims.siteUrl, context: claims.context, deploy_context: claims.context })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('netlify')
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + SIGNATURE_LIFETIME_SECONDS)
    .sign(new TextEncoder().encode(secret));
}
