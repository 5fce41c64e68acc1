import type { RoleRefusalWording } from '../access/authorize';
import { declareErrors } from '../common/errors';

export const billingError = declareErrors('billing', {
  invalid_payment_method: 400,
  payment_failed: 402,
  quota_exceeded: 402,
  // 402 to activate a plan without one; 409 to remove the last one while a paid plan renews.
  payment_method_required: [402, 409],
  payment_method_exists: 409,
  no_subscription: 409,
  payment_provider_unavailable: 502,
  // Checkout and the portal are the hosted provider's (Stripe); the local provider has neither.
  hosted_billing_unavailable: 409,
  // Checkout only starts a subscription: for the plan already in force, or beside another one running.
  already_on_plan: 409,
  subscription_exists: 409,
  // Issue 31, the Stripe webhook: a delivery whose Stripe-Signature does not verify; an installation that takes none.
  invalid_signature: 400,
  stripe_webhook_not_configured: 404,
});
export type BillingErrorCode = keyof typeof billingError.codes;

/** How a refused non-owner hears it: 403 `owner_required`, as billing has always answered. */
export const BILLING_ROLE_REFUSAL: RoleRefusalWording = { code: 'owner_required', action: 'manage its billing' };
