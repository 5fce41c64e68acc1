import { declareErrors } from '../common/errors';

/**
 * Errors of a project's Git settings and environment variables. `git_not_connected`
 * is 404 on the settings' own routes and 409 where an action needs the settings
 * (starting a build: `gitError.at(409, 'git_not_connected', …)`).
 */
export const gitError = declareErrors('git', {
  repository_not_allowed: 400,
  git_not_connected: [404, 409],
  env_var_not_found: 404,
  repository_lookup_failed: 503,
});
export type GitErrorCode = keyof typeof gitError.codes;
