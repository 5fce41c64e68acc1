import { createHash } from 'node:crypto';

import { parsePreviewLabel, PREVIEW_SEPARATOR } from './preview-label';
import { MAX_SLUG_LENGTH } from './slug';

/**
 * The DNS label of a branch's or a pull request's stable preview address (issue 29),
 * `<label>.<SITES_DOMAIN>`, which always serves that branch's newest ready build. The
 * scheme and why it never collides with anything else on the sites domain is written out
 * in docs/previews.md; in short:
 *
 * - short form: `<branch>--<slug>` and `pr-<n>--<slug>`, with the branch lower-cased and
 *   every run of characters outside `[a-z0-9]` made one `-` (so it never holds `--`);
 * - hashed form, whenever the short form would not be a safe label:
 *   `<branch head>--<slug head>--<12 letters of a hash of (kind, name, slug)>`.
 *
 * Every alias holds `--`, so it is never a slug a new project may take (slug.ts); it never
 * has the shape of a deployment's preview label (`<slug>--<version>` or
 * `<slug prefix>--<id body>`, preview-label.ts), which the router reads first; a short form
 * holds exactly one `--` and a hashed form exactly two, so the two forms never meet.
 */

const HASH_LENGTH = 12;
// 12 letters a-z: never all digits (a version) nor 24 characters (an id body), and 26^12
// (about 2^56) makes finding a second (branch, slug) with the same hashed label impractical.
const HASH_ALPHABET = 'abcdefghijklmnopqrstuvwxyz';
const PULL_REQUEST_PART = /^pr-[0-9]+$/;

export type AliasSource = { kind: 'branch'; branch: string } | { kind: 'pull_request'; number: number };

/** `<branch>--<slug>`, or its hashed form when that is not a safe label (see above). */
export function branchAlias(branch: string, slug: string): string {
  const part = sanitiseBranch(branch);
  // A branch called "pr-12" must not take pull request 12's address.
  const short = PULL_REQUEST_PART.test(part) ? null : shortForm(part, slug);
  return short ?? hashedForm(part, slug, `branch\0${branch}`);
}

/** `pr-<n>--<slug>`, or its hashed form when that is not a safe label (see above). */
export function pullRequestAlias(pullRequest: number, slug: string): string {
  if (!Number.isSafeInteger(pullRequest) || pullRequest < 1) throw new RangeError(`pull request number must be a positive integer, got ${pullRequest}`);
  const part = `pr-${pullRequest}`;
  return shortForm(part, slug) ?? hashedForm(part, slug, `pull_request\0${pullRequest}`);
}

/** The alias of a branch or a pull request. */
export function previewAlias(source: AliasSource, slug: string): string {
  return source.kind === 'branch' ? branchAlias(source.branch, slug) : pullRequestAlias(source.number, slug);
}

/**
 * The hashed form of a source's alias, even where the short form would do: the address a
 * newer alias takes when its short form is already another project's (a slug renamed
 * after the alias was made, then taken by another project; see docs/previews.md).
 */
export function hashedPreviewAlias(source: AliasSource, slug: string): string {
  if (source.kind === 'branch') return hashedForm(sanitiseBranch(source.branch), slug, `branch\0${source.branch}`);
  pullRequestAlias(source.number, slug);
  return hashedForm(`pr-${source.number}`, slug, `pull_request\0${source.number}`);
}

/** A branch name as the `[a-z0-9-]` part of a label: no `--`, no `-` at either end (possibly empty). */
export function sanitiseBranch(branch: string): string {
  return branch
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function shortForm(part: string, slug: string): string | null {
  const label = `${part}${PREVIEW_SEPARATOR}${slug}`;
  // Empty: the label would start with "-". Two characters: "ab--…" is a reserved
  // ("R-LDH", e.g. "xn--" punycode) label that certificate authorities refuse.
  if (part.length === 0 || part.length === 2) return null;
  if (label.length > MAX_SLUG_LENGTH) return null;
  // Slugs taken before "--" was refused: the short form must hold exactly one "--".
  if (slug.includes(PREVIEW_SEPARATOR)) return null;
  // A slug of digits ("2024") or of 24 letters and digits would make the label read as
  // another project's deployment preview, `<part>--<version>` / `<part>--<id body>`.
  if (parsePreviewLabel(label) !== null) return null;
  return label;
}

// 63 = head + "--" + head + "--" + 12 letters.
const HEADS_BUDGET = MAX_SLUG_LENGTH - 2 * PREVIEW_SEPARATOR.length - HASH_LENGTH;
const MIN_BRANCH_HEAD = 12;

function hashedForm(part: string, slug: string, identity: string): string {
  // Readable heads only: what the label names is the hash of the full (kind, name, slug).
  const slugHead = cutLabel(slug.replace(/-+/g, '-'), HEADS_BUDGET - Math.min(part.length, MIN_BRANCH_HEAD));
  let branchHead = cutLabel(part, HEADS_BUDGET - slugHead.length);
  // Empty or two characters: see shortForm.
  if (branchHead.length === 0) branchHead = 'b';
  else if (branchHead.length === 2) branchHead = branchHead.slice(0, 1);
  return `${branchHead}${PREVIEW_SEPARATOR}${slugHead}${PREVIEW_SEPARATOR}${letterHash(`${identity}\0${slug}`)}`;
}

function cutLabel(text: string, max: number): string {
  return text.slice(0, Math.max(0, max)).replace(/-+$/, '');
}

function letterHash(text: string): string {
  let n = createHash('sha256').update(text).digest().readBigUInt64BE(0);
  let out = '';
  for (let i = 0; i < HASH_LENGTH; i++) {
    out += HASH_ALPHABET[Number(n % 26n)];
    n /= 26n;
  }
  return out;
}
