import { buildsError } from './builds.errors';

const SHA = /^[0-9a-f]{40}$/i;

/**
 * A ref as the API takes it: a branch, a tag or a full commit id, by git's own rules for
 * names (git check-ref-format), checked here so a bad one is a 400 and never reaches git.
 * Returns the branch it names (`refs/heads/` dropped): null for a commit id (the pipeline reports the branch).
 */
export function requestRef(ref: string, field = 'ref'): { ref: string; branch: string | null } {
  const refuse = (why: string) => buildsError('invalid_ref', `${field}: ${why}; give a branch, a tag or a full 40-character commit id`);
  if (ref.length === 0 || ref.length > 255) throw refuse('must be 1 to 255 characters');
  if (SHA.test(ref)) return { ref: ref.toLowerCase(), branch: null };
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(ref)) throw refuse('must not hold spaces, control characters or any of ~ ^ : ? * [ \\');
  if (ref.startsWith('-')) throw refuse('must not start with "-"');
  if (ref.startsWith('/') || ref.endsWith('/') || ref.includes('//')) throw refuse('must not start or end with "/" or hold "//"');
  if (ref.includes('..') || ref.includes('@{') || ref === '@') throw refuse('must not hold ".." or "@{"');
  if (ref.endsWith('.') || ref.endsWith('.lock') || ref.split('/').some((part) => part.startsWith('.'))) {
    throw refuse('no part may start with "." and it must not end with "." or ".lock"');
  }
  // `refs/heads/main` is the branch main, as the checkout takes it (git-clone.ts): the branch
  // that decides production's settings and publishing must be that same name.
  return { ref, branch: ref.replace(/^refs\/heads\//, '') };
}

/**
 * Which active builds a new build of `branch` (as requestRef gave it) replaces, besides
 * pull requests: those asked with one of `branches` as their branch, and those whose clone
 * found a tag (branch null) asked as one of `tags`. A tag may be asked as `v2.0` or as
 * `refs/tags/v2.0`: both are the same build. A build asked as `refs/tags/v2.0` and still
 * queued is surely the tag; one asked as `v2.0` and still queued may turn out to be a
 * branch of that name, so a build of `refs/tags/v2.0` leaves it alone.
 */
export function replacedNames(branch: string): { branches: string[]; tags: string[] } {
  const tagName = branch.startsWith('refs/tags/') ? branch.slice('refs/tags/'.length) : null;
  if (tagName !== null) return { branches: [branch], tags: [branch, tagName] };
  if (branch.startsWith('refs/')) return { branches: [branch], tags: [branch] };
  return { branches: [branch, `refs/tags/${branch}`], tags: [branch, `refs/tags/${branch}`] };
}
