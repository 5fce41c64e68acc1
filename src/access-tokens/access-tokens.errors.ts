import { declareErrors } from '../common/errors';

export const accessTokensError = declareErrors('access-tokens', {
  token_outlives_creator: 403,
});
export type AccessTokensErrorCode = keyof typeof accessTokensError.codes;
