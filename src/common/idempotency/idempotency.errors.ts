import { declareErrors } from '../errors';

export const idempotencyError = declareErrors('idempotency', {
  invalid_idempotency_key: 400,
  idempotency_key_in_progress: 409,
  idempotency_key_reused: 422,
});
export type IdempotencyErrorCode = keyof typeof idempotencyError.codes;
