export type CacheTagHeader = 'Cache-Tag' | 'Surrogate-Key';

/**
 * SITE_CACHE_TAG_HEADERS (validated by the schema) as header names, each once. Unset: both
 * when a purge webhook is configured (a CDN in front reads them), none otherwise.
 */
export function cacheTagHeaderNames(setting: string | undefined, purgeWebhook: boolean): CacheTagHeader[] {
  if (setting === undefined) return purgeWebhook ? ['Cache-Tag', 'Surrogate-Key'] : [];
  const asked = new Set(setting.toLowerCase().split(','));
  const names: CacheTagHeader[] = [];
  if (asked.has('cache-tag')) names.push('Cache-Tag');
  if (asked.has('surrogate-key')) names.push('Surrogate-Key');
  return names;
}
