import { declareErrors } from '../common/errors';

/**
 * Errors of the outgoing webhooks (issue 30). `webhook_url_refused` covers every reason a
 * URL may not be called (scheme, an address the policy refuses, a name that does not
 * resolve); the message says which.
 */
export const webhooksError = declareErrors('webhooks', {
  webhook_url_refused: 400,
  webhook_not_found: 404,
  webhook_delivery_not_found: 404,
});
export type WebhooksErrorCode = keyof typeof webhooksError.codes;
