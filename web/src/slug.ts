/**
 * The slug the CLI derives from a name (packages/cli/format.ts slugFromName; slug.spec.ts
 * holds them equal): the onboarding page shows it before anything is created, so the
 * `--project` of its CLI line and the address a folder deploy gets are the same.
 */
export function slugOf(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
}
