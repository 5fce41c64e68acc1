/**
 * An API_HOSTS entry without its port (`api.example.com:8443` → `api.example.com`,
 * `[::1]:3000` → `[::1]`): what a request's host or a cookie's domain is compared with.
 */
export function hostOnly(entry: string): string {
  if (entry.startsWith('[')) return entry.slice(0, entry.indexOf(']') + 1);
  return entry.split(':')[0];
}
