/**
 * The digest-first deploy's client-side rules, shared by the SDK (packages/sdk/deploy.ts, the
 * CLI) and the dashboard (web/src/deploy.ts): nothing here touches Node or the DOM.
 */

/** Upload rounds before giving up (a blob is collected between upload and deploy only after the grace period). */
export const DEPLOY_ROUNDS = 3;
/** Files up to this size may ride inline in the repeated manifest instead of a PUT each. */
export const INLINE_MAX_FILE = 64 * 1024;
/** How many bytes of a manifest may be inline files. */
export const INLINE_BYTES = 8 * 1024 * 1024;

export type ManifestEntry = { path: string; sha256: string; size: number } | { path: string; content: string; encoding: 'base64' };

/** Which missing files ride inline: small ones, first come, within the byte budget. */
export function pickInline(missing: { sha256: string; size: number }[], budget: number): Set<string> {
  const inline = new Set<string>();
  if (budget <= 0) return inline;
  let used = 0;
  for (const f of missing) {
    if (inline.has(f.sha256) || f.size > INLINE_MAX_FILE || used + f.size > budget) continue;
    inline.add(f.sha256);
    used += f.size;
  }
  return inline;
}
