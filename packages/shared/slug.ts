/**
 * A project slug from a name, as Vercel does: lowercase ASCII letters, digits and single
 * dashes, accents dropped, at most 63 characters (one DNS label). The CLI names a project
 * after its folder with it, and the dashboard's onboarding page shows it before anything is
 * created, so the `--project` of the page's CLI line and the address a folder deploy gets
 * are the same. The service still checks what it is sent (reserved names are its word).
 */
export function slugFromName(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  // A new slug has 1 or at least 3 characters (a 2-character one's previews, "go--1", are labels
  // certificate authorities refuse): "Go" becomes "go-site", as the service derives it.
  return slug.length === 2 ? `${slug}-site` : slug;
}
