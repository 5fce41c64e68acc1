import { ID_BODY_LENGTH } from '../common/ids';
import { MAX_SLUG_LENGTH } from './slug';

/**
 * The DNS label of a deployment's preview address, `<label>.<SITES_DOMAIN>`:
 * `<slug>--<version>` when that fits a DNS label (63 characters), else
 * `<first 37 characters of the slug>--<the 24 characters of the deployment id after "dep_">`.
 *
 * One label (not `<version>.<slug>.<domain>`) so the sites domain's one wildcard
 * certificate and DNS record cover every preview. Unambiguous: new slugs may not
 * contain "--" (slug.ts), so the last "--" splits the label; what follows it is a
 * version (1 to 10 digits) or an id body (24 characters), never both. The router
 * serves a label only in the form this function gives for the deployment it names.
 */
export const PREVIEW_SEPARATOR = '--';
const ID_FORM_PREFIX_LENGTH = MAX_SLUG_LENGTH - PREVIEW_SEPARATOR.length - ID_BODY_LENGTH;

export function previewLabel(slug: string, version: number, deploymentId: string): string {
  const full = `${slug}${PREVIEW_SEPARATOR}${version}`;
  if (full.length <= MAX_SLUG_LENGTH) return full;
  const prefix = slug.slice(0, ID_FORM_PREFIX_LENGTH).replace(/-+$/, '');
  return `${prefix}${PREVIEW_SEPARATOR}${deploymentId.slice(deploymentId.indexOf('_') + 1)}`;
}

export type PreviewTarget =
  | { slug: string; version: number }
  /** The long-slug form: the deployment by id, its project's slug starting with `slugPrefix`. */
  | { slugPrefix: string; deploymentId: string };

/** What a label names when it has a preview label's shape, else null (then it can only be a slug). */
export function parsePreviewLabel(label: string): PreviewTarget | null {
  const at = label.lastIndexOf(PREVIEW_SEPARATOR);
  if (at <= 0 || label.length > MAX_SLUG_LENGTH) return null;
  const head = label.slice(0, at);
  const tail = label.slice(at + PREVIEW_SEPARATOR.length);
  // "a---1" splits as "a-" + "1": a slug never ends with "-".
  if (head.endsWith('-')) return null;
  if (/^[1-9][0-9]{0,9}$/.test(tail)) {
    const version = Number(tail);
    return version <= 0x7fffffff ? { slug: head, version } : null;
  }
  if (tail.length === ID_BODY_LENGTH && /^[0-9a-z]+$/.test(tail)) return { slugPrefix: head, deploymentId: `dep_${tail}` };
  return null;
}
