import { request } from 'node:http';

import { type TestApp } from './app';
import { bearer } from './identity';

export interface DeployFile {
  path: string;
  content: string;
  encoding?: 'utf8' | 'base64';
}

/** Deploys files to `slug` through the real lazy-deploy API and returns its response body. */
export async function deploySite(t: TestApp, token: string, slug: string, files: DeployFile[], extra: object = {}) {
  const res = await t
    .http()
    .post('/v1/deployments')
    .set(bearer(token))
    .send({ project_slug: slug, files, ...extra });
  if (res.status !== 201) throw new Error(`deploy of ${slug} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; url: string; version: number; size_bytes: number; expires_at: string | null };
}

/** The Host header of a project's site on this app. */
export const siteHost = (t: TestApp, slug: string) => `${slug}.${t.config.SITES_DOMAIN}:${t.port}`;

/** A request to a site, over the app's real HTTP server, with the site's Host header. */
export function site(t: TestApp, slug: string) {
  const host = siteHost(t, slug);
  const agent = t.http();
  return {
    get: (path: string) => agent.get(path).set('Host', host),
    head: (path: string) => agent.head(path).set('Host', host),
    post: (path: string) => agent.post(path).set('Host', host),
    request: (method: string, path: string) =>
      (agent as unknown as Record<string, (p: string) => ReturnType<typeof agent.get>>)[method.toLowerCase()](path).set('Host', host),
  };
}

/** GET a site address (`url` as the API answers it) on this app's port, with the site's Host header, as a browser would reach it here. */
export function fetchSite(t: TestApp, url: string, path = '/'): Promise<{ status: number; body: string }> {
  const { host } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: t.port, path, headers: { Host: host } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
