import { declareErrors } from '../common/errors';

export const projectsError = declareErrors('projects', {
  invalid_slug: 400,
  slug_taken: 409,
  domain_taken: 409,
});
export type ProjectsErrorCode = keyof typeof projectsError.codes;
