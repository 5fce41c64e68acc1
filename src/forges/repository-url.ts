/**
 * Which repository a URL names, as forges write them in webhook payloads and people
 * paste them into settings: `https://github.com/Owner/Repo.git`, `https://github.com/owner/repo`,
 * `http://gitea.local:3000/owner/repo/`, `git@github.com:owner/repo.git`,
 * `ssh://git@gitea.example:2222/owner/repo.git`.
 *
 * GitHub, GitLab, Gitea and Forgejo all look owners and repositories up without regard
 * to case, and serve a repository at the same path with or without `.git`, over http(s)
 * and ssh alike: so the key is the lower-cased host (with a non-default http(s) port)
 * and the lower-cased path without `.git` and slashes at either end. Credentials, query
 * and fragment never count.
 */
export interface RepositoryId {
  host: string;
  path: string;
}

/** The repository a URL names, or null when it is not a URL of a repository on a host. */
export function repositoryId(url: string): RepositoryId | null {
  if (typeof url !== 'string') return null;
  const text = url.trim();
  // scp-like ssh: "git@host:owner/repo.git" (no scheme, a colon before the path).
  if (!text.includes('://')) {
    const scp = /^(?:[^@/:\s]+@)?([^@/:\s]+):([^\s]+)$/.exec(text);
    return scp ? finish(scp[1], '', scp[2]) : null;
  }
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return null;
  }
  const scheme = parsed.protocol.slice(0, -1).toLowerCase();
  if (!['https', 'http', 'ssh', 'git'].includes(scheme)) return null;
  // An ssh port is not where the forge serves http: the same repository either way.
  const port = scheme === 'https' || scheme === 'http' ? parsed.port : '';
  return finish(parsed.hostname, port, parsed.pathname);
}

function finish(hostname: string, port: string, rawPath: string): RepositoryId | null {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  const path = rawPath
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.git$/i, '')
    .replace(/\/+$/g, '')
    .toLowerCase();
  const segments = path.split('/');
  // Every forge names a repository by at least an owner (or group) and a name.
  if (!host || segments.length < 2 || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) return null;
  return { host: port ? `${host}:${port}` : host, path };
}

/** Whether two URLs name the same repository (false when either names none). */
export function sameRepository(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return false;
  const x = repositoryId(a);
  const y = repositoryId(b);
  return x !== null && y !== null && x.host === y.host && x.path === y.path;
}

/** Whether any of `urls` (a payload's clone, web and ssh URLs) names `repository`. */
export function namesRepository(urls: readonly string[], repository: string): boolean {
  return urls.some((url) => sameRepository(url, repository));
}
