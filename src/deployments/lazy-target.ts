import { forbidden } from '../common/errors';
import { projectsError } from '../projects/projects.errors';
import type { Principal } from '../shared/principal';
import { type NewSlug, parseNewSlug, type Slug } from '../shared/slug';

/** Where a lazy deploy goes: to the project that has the slug, or to a new project under it. */
export type LazyTarget<P> = { project: P } | { create: NewSlug };

/**
 * The project a lazy deploy to `slug` goes to (POST /v1/deployments and its preflight,
 * which must refuse alike), given the project that holds the slug now: the caller's own,
 * or a new one; never another workspace's. Throws the error the request stops with.
 */
export function lazyTarget<P extends { id: string; workspaceId: string }>(
  principal: Pick<Principal, 'workspaceId' | 'projectId'>,
  slug: Slug,
  existing: P,
): { project: P };
export function lazyTarget<P extends { id: string; workspaceId: string }>(
  principal: Pick<Principal, 'workspaceId' | 'projectId'>,
  slug: Slug,
  existing: P | null | undefined,
): LazyTarget<P>;
export function lazyTarget<P extends { id: string; workspaceId: string }>(
  principal: Pick<Principal, 'workspaceId' | 'projectId'>,
  slug: Slug,
  existing: P | null | undefined,
): LazyTarget<P> {
  if (existing) {
    // Indistinguishable from any taken slug: never confirm another workspace's project.
    if (existing.workspaceId !== principal.workspaceId) throw projectsError('slug_taken', `slug "${slug}" is already taken`);
    if (principal.projectId && principal.projectId !== existing.id) {
      throw forbidden(`This token is bound to another project and cannot deploy to "${slug}"`);
    }
    return { project: existing };
  }
  if (principal.projectId) throw forbidden(`This token is bound to one project and cannot create project "${slug}"`);
  // Existing projects keep slugs taken under older rules; a new one follows today's.
  const fresh = parseNewSlug(slug);
  if (!fresh.ok) throw projectsError('invalid_slug', `project_slug: ${fresh.problem}`);
  return { create: fresh.value };
}
