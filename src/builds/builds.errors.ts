import { declareErrors } from '../common/errors';

export const buildsError = declareErrors('builds', {
  invalid_ref: 400,
  build_not_found: 404,
  build_finished: 409,
  builds_unavailable: 503,
});
export type BuildsErrorCode = keyof typeof buildsError.codes;
