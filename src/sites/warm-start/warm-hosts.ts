/** A host of the warm-start list: a project's own `<slug>.<SITES_DOMAIN>`, or a verified custom domain. */
export interface WarmHost {
  kind: 's' | 'd';
  name: string;
}

/** Longest host name DNS allows: a longer key is no host, whatever wrote it. */
const MAX_NAME = 253;

/**
 * SiteCache key → warm-start host, or null for keys that are not kept: preview addresses
 * (`p:`, a deployment's own, visited by its owner), cached misses, anything malformed.
 */
export function warmHostOf(key: string): WarmHost | null {
  const kind = key.slice(0, 2);
  const name = key.slice(2);
  if ((kind !== 's:' && kind !== 'd:') || name.length === 0 || name.length > MAX_NAME) return null;
  return { kind: kind === 's:' ? 's' : 'd', name };
}

/** `items` in runs of `size` (the last one shorter). */
export function inRuns<T>(items: readonly T[], size: number): T[][] {
  if (!(size >= 1)) throw new Error(`run size must be at least 1, not ${size}`);
  const runs: T[][] = [];
  for (let i = 0; i < items.length; i += size) runs.push(items.slice(i, i + size));
  return runs;
}
