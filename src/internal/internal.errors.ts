import { declareErrors } from '../common/errors';

export const internalError = declareErrors('internal', {
  certificate_not_allowed: 404,
});
export type InternalErrorCode = keyof typeof internalError.codes;
