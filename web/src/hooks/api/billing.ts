import { type QueryClient, queryOptions } from '@tanstack/react-query';

import { api, call, errorOf, inWorkspace, type Schemas, transport } from '../../api';
import { type MutationOptions, useInvalidatingMutation } from './mutation';
import { billingUsageKeys, invoiceKeys, paymentMethodKeys, planKeys, subscriptionKeys, workspaceKeys } from './query-keys';

/** A metered quota as GET /billing/usage gives it (issue 31 adds `percent`: used/limit × 100, one decimal; null when unlimited). */
export type UsageItem = { used: number; limit: number | null; resetsAt?: string; percent?: number | null };

/**
 * GET /billing/usage with what issue 31 adds (bandwidth, `percent`, the spend cap), all
 * optional here: those fields come from the metering branch, so the page shows them when
 * the API gives them and works without them.
 */
export type BillingUsage = Omit<Schemas['BillingUsageView'], 'usage'> & {
  usage: Record<string, UsageItem | undefined> & Schemas['BillingUsageView']['usage'];
  spendCap?: { pauseSitesAtLimit: boolean; sitesPaused: boolean };
};

/** GET /billing/subscription with what issue 31 adds (`past_due`, its grace, the dispute flag: the lifecycle branch). */
export type SubscriptionState = Omit<Schemas['SubscriptionView'], 'status'> & {
  status: Schemas['SubscriptionView']['status'] | 'past_due';
  pastDueSince?: string | null;
  graceEndsAt?: string | null;
  disputed?: boolean;
};

export type Invoice = {
  id: string;
  number: string | null;
  status: string;
  amountDue: number;
  amountPaid: number;
  currency: string;
  periodStart: string | null;
  periodEnd: string | null;
  hostedInvoiceUrl: string | null;
  createdAt: string;
};

/**
 * A billing route the typed client does not know yet on this branch (spend cap, invoices:
 * other branches of issue 31 add them; once the SDK is generated with them, these become
 * `api.GET/PUT` calls like the rest).
 */
async function untyped<T>(method: 'GET' | 'PUT', path: string, workspaceId: string, body?: object): Promise<T> {
  const init: RequestInit = { method, headers: { ...inWorkspace(workspaceId), ...(body ? { 'Content-Type': 'application/json' } : {}) } };
  if (body) init.body = JSON.stringify(body);
  const response = await transport.authorizedFetch(new Request(new URL(path, window.location.origin), init));
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as T;
}

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
      queryFn: async (): Promise<BillingUsage> =>
        call(api.GET('/billing/usage', { params: { query: { workspaceId } }, headers: inWorkspace(workspaceId) })) as Promise<BillingUsage>,
    }),
  invoices: (workspaceId: string) =>
    queryOptions({
      queryKey: invoiceKeys.all(workspaceId),
      queryFn: () =>
        untyped<{ data: Invoice[]; meta: { total: number } }>('GET', `/billing/invoices?workspaceId=${encodeURIComponent(workspaceId)}&limit=12`, workspaceId),
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
    (pauseSitesAtLimit: boolean) =>
      untyped<{ workspaceId: string; pauseSitesAtLimit: boolean; sitesPaused: boolean }>('PUT', '/billing/spend-cap', workspaceId, {
        workspaceId,
        pauseSitesAtLimit,
      }),
    (qc) => qc.invalidateQueries({ queryKey: billingUsageKeys.all(workspaceId) }),
  );
}
