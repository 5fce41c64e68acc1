import { type QueryClient, queryOptions } from '@tanstack/react-query';

import { api, call, inWorkspace, type Schemas } from '../../api';
import { type MutationOptions, useInvalidatingMutation } from './mutation';
import { billingUsageKeys, invoiceKeys, paymentMethodKeys, planKeys, subscriptionKeys, workspaceKeys } from './query-keys';

/** A metered quota as GET /billing/usage gives it: monthly ones also say when they count again. */
export type UsageItem = Schemas['QuotaUsageView'] & Partial<Pick<Schemas['MonthlyQuotaUsageView'], 'resetsAt'>>;
export type BillingUsage = Schemas['BillingUsageView'];
export type SubscriptionState = Schemas['SubscriptionView'];

export const billingQueries = {
  plans: () => queryOptions({ queryKey: planKeys.all(), queryFn: () => call(api.GET('/billing/plans')), staleTime: 5 * 60_000 }),
  subscription: (workspaceId: string) =>
    queryOptions({
      queryKey: subscriptionKeys.all(workspaceId),
      queryFn: () => call(api.GET('/billing/subscription', { params: { query: { workspaceId } }, headers: inWorkspace(workspaceId) })),
    }),
  usage: (workspaceId: string) =>
    queryOptions({
      queryKey: billingUsageKeys.all(workspaceId),
      queryFn: () => call(api.GET('/billing/usage', { params: { query: { workspaceId } }, headers: inWorkspace(workspaceId) })),
    }),
  invoices: (workspaceId: string) =>
    queryOptions({
      queryKey: invoiceKeys.all(workspaceId),
      queryFn: () => call(api.GET('/billing/invoices', { params: { query: { workspaceId, limit: 12 } }, headers: inWorkspace(workspaceId) })),
      retry: false,
    }),
  paymentMethods: (workspaceId: string) =>
    queryOptions({
      queryKey: paymentMethodKeys.all(workspaceId),
      queryFn: () => call(api.GET('/billing/payment-methods', { params: { query: { workspaceId, limit: 20 } }, headers: inWorkspace(workspaceId) })),
    }),
};

export function useAddPaymentMethod(workspaceId: string, options?: MutationOptions<unknown, string>) {
  return useInvalidatingMutation(
    (paymentMethodToken: string) =>
      call(api.POST('/billing/payment-methods', { body: { workspaceId, paymentMethodToken }, headers: inWorkspace(workspaceId) })),
    (qc) => qc.invalidateQueries({ queryKey: paymentMethodKeys.all(workspaceId) }),
    options,
  );
}

/** A plan changed: the subscription, the workspace's limits, and the role/plan shown in the workspace list. */
const planChanged = async (qc: QueryClient, workspaceId: string) => {
  await qc.invalidateQueries({ queryKey: subscriptionKeys.all(workspaceId) });
  await qc.invalidateQueries({ queryKey: billingUsageKeys.all(workspaceId) });
  await qc.invalidateQueries({ queryKey: workspaceKeys.all() });
};

export function useActivatePlan(workspaceId: string) {
  return useInvalidatingMutation(
    (body: Omit<Schemas['ActivatePlanDto'], 'workspaceId'>) =>
      call(api.POST('/billing/activate-plan', { body: { workspaceId, ...body }, headers: inWorkspace(workspaceId) })),
    (qc) => planChanged(qc, workspaceId),
  );
}

export function useCancelPlan(workspaceId: string, options?: MutationOptions<Schemas['SubscriptionView'], void>) {
  return useInvalidatingMutation(
    () => call(api.POST('/billing/cancel', { body: { workspaceId }, headers: inWorkspace(workspaceId) })),
    (qc) => planChanged(qc, workspaceId),
    options,
  );
}

/** Sends the browser to a page of the payment provider's (Checkout, the portal): the dashboard shows no card form of its own. */
function leaveFor(answer: { url: string }): void {
  window.location.assign(answer.url);
}

export function useCheckout(workspaceId: string) {
  return useInvalidatingMutation(
    (body: Omit<Schemas['CheckoutDto'], 'workspaceId'>) =>
      call(api.POST('/billing/checkout', { body: { workspaceId, ...body }, headers: inWorkspace(workspaceId) })),
    async () => undefined,
    { onSuccess: leaveFor },
  );
}

export function usePortal(workspaceId: string) {
  return useInvalidatingMutation(
    () => call(api.POST('/billing/portal', { body: { workspaceId }, headers: inWorkspace(workspaceId) })),
    async () => undefined,
    { onSuccess: leaveFor },
  );
}

export function useSpendCap(workspaceId: string) {
  return useInvalidatingMutation(
    (pauseSitesAtLimit: boolean) => call(api.PUT('/billing/spend-cap', { body: { workspaceId, pauseSitesAtLimit }, headers: inWorkspace(workspaceId) })),
    (qc) => qc.invalidateQueries({ queryKey: billingUsageKeys.all(workspaceId) }),
  );
}
