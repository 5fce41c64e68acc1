import type { CacheTagHeader } from '../config/cache-tag-headers';

/** The cache tags of site answers (Cache-Tag / Surrogate-Key) and of purge calls. */
export const projectCacheTag = (projectId: string) => `statichost-project-${projectId}`;
export const deploymentCacheTag = (deploymentId: string) => `statichost-deployment-${deploymentId}`;

/** The tag headers of one answer, as a flat [name, value, ...] list: Cloudflare's comma-separated, Fastly's space-separated. */
export function cacheTagHeaderList(names: readonly CacheTagHeader[], tags: readonly string[]): string[] {
  const list: string[] = [];
  for (const name of names) list.push(name, tags.join(name === 'Cache-Tag' ? ',' : ' '));
  return list;
}
