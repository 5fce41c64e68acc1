/**
 * What a request that no file answers gets, as Cloudflare Pages documents it
 * ("Serving Pages": Not Found behavior, Single-page application rendering):
 *
 * - the closest `404.html` up the tree, with status 404: `/blog/x` gets
 *   `blog/404.html`, else `404.html`; `/blog/x/` tries `blog/x/404.html` first;
 * - with no such page (so no top-level `404.html`), a single-page application is
 *   assumed and `index.html` answers with 200, so client-side routes such as
 *   `/settings/profile` work on a reload.
 *
 * Where we differ: Cloudflare answers every miss with `index.html`. We do so only
 * for GET and HEAD and when the last segment has no known file extension
 * (`/app.js`, `/logo.png`, `/old.php` stay 404), so a missing asset is a 404 a
 * browser and a developer can see, not HTML parsed as JavaScript. A name whose
 * "extension" is not a known file type (`/users/jane.doe`, `/docs/v1.2`) still
 * gets the application.
 */
import { lookup } from 'mime-types';

export type NotFoundAnswer = { kind: 'file'; path: string; status: 404 | 200 } | { kind: 'not_found' };

/**
 * `path` is the canonical request path (parseRequestPath's form); `has` says
 * whether the deployment has a file under a manifest key.
 */
export function notFoundAnswer(path: string, method: string, has: (path: string) => boolean): NotFoundAnswer {
  let dir = path;
  for (;;) {
    const slash = dir.lastIndexOf('/');
    dir = slash === -1 ? '' : dir.slice(0, slash);
    const page = dir === '' ? '404.html' : `${dir}/404.html`;
    if (has(page)) return { kind: 'file', path: page, status: 404 };
    if (dir === '') break;
  }
  if ((method === 'GET' || method === 'HEAD') && !hasFileExtension(path) && has('index.html')) {
    return { kind: 'file', path: 'index.html', status: 200 };
  }
  return { kind: 'not_found' };
}

/** Whether the last segment ends in an extension that names a file type (".js", ".png", ".php"…). */
export function hasFileExtension(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 && lookup(name.slice(dot)) !== false;
}
