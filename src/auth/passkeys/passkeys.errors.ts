import { declareErrors } from '../../common/errors';

/**
 * Errors of passkeys (issue 32). `invalid_passkey_response` covers every reason a
 * registration answer is refused (its challenge unknown, expired or used, the origin or
 * relying party not ours, a bad signature); the message says which. A refused sign-in is
 * `passkey_not_accepted` (401), whatever the reason, with the reason in the message.
 */
export const passkeysError = declareErrors('passkeys', {
  invalid_passkey_response: 400,
  passkey_not_accepted: 401,
  passkey_not_found: 404,
  passkey_already_registered: 409,
  passkey_limit_reached: 409,
});
export type PasskeysErrorCode = keyof typeof passkeysError.codes;
