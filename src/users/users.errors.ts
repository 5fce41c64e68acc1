import { declareErrors } from '../common/errors';

export const usersError = declareErrors('users', {
  email_not_verified: 403,
  email_taken: 409,
});
export type UsersErrorCode = keyof typeof usersError.codes;
