import { type NewSlug, parseNewSlug, parseSlug, type Slug } from '../shared/slug';
import { projectsError } from './projects.errors';

/*
 * A request's slug, parsed where it enters (the controller) into the typed value the
 * services take, or the 400 `invalid_slug` naming the field. Apart from slug.ts so the
 * CLI, which imports slug.ts, does not pull in the server's errors.
 */

/** A slug to look up or deploy to (`project_slug`). */
export function requestSlug(raw: string, field: string): Slug {
  const parsed = parseSlug(raw);
  if (!parsed.ok) throw projectsError('invalid_slug', `${field}: ${parsed.problem}`);
  return parsed.value;
}

/** A slug for a new project (`slug` of POST /projects). */
export function requestNewSlug(raw: string, field: string): NewSlug {
  const parsed = parseNewSlug(raw);
  if (!parsed.ok) throw projectsError('invalid_slug', `${field}: ${parsed.problem}`);
  return parsed.value;
}
