import { declareErrors } from '../common/errors';

/**
 * Errors of the forge webhook receiver (POST /hooks/git/:projectId). One 401 for a
 * missing or wrong signature, a project without a secret and an unknown project, with
 * the same message for the same request, so the answer tells nobody which projects exist.
 */
export const hooksError = declareErrors('hooks', {
  invalid_webhook_signature: 401,
  invalid_webhook_payload: 400,
  repository_mismatch: 400,
});
export type HooksErrorCode = keyof typeof hooksError.codes;
