/**
 * Query keys, built in one place (medusa's admin dashboard: `queryKeysFactory`). A key
 * starts with its resource and the ids it lives under (the workspace, the project), so
 * invalidating `all(scope)` reaches every list and detail below it, and two pages that
 * ask the same thing share one cache entry.
 */
export type QueryKey = readonly unknown[];

export interface QueryKeys<Scope extends readonly string[]> {
  /** Everything of the resource in `scope`: what a change invalidates. */
  all(...scope: Scope): QueryKey;
  lists(...scope: Scope): QueryKey;
  list(scope: Scope, query?: Record<string, unknown>): QueryKey;
  details(...scope: Scope): QueryKey;
  detail(scope: Scope, id: string, query?: Record<string, unknown>): QueryKey;
}

export function queryKeysFactory<Scope extends readonly string[] = []>(resource: string): QueryKeys<Scope> {
  const all = (...scope: Scope) => [resource, ...scope] as const;
  return {
    all,
    lists: (...scope) => [...all(...scope), 'list'],
    list: (scope, query = {}) => [...all(...scope), 'list', query],
    details: (...scope) => [...all(...scope), 'detail'],
    detail: (scope, id, query = {}) => [...all(...scope), 'detail', id, query],
  };
}

export const meKeys = queryKeysFactory('me');
export const workspaceKeys = queryKeysFactory('workspaces');
export const invitationKeys = queryKeysFactory('invitations');
export const memberKeys = queryKeysFactory<[workspaceId: string]>('members');
export const projectKeys = queryKeysFactory<[workspaceId: string]>('projects');
export const deploymentKeys = queryKeysFactory<[workspaceId: string, projectId: string]>('deployments');
export const analyticsKeys = queryKeysFactory<[workspaceId: string, projectId: string]>('analytics');
export const tokenKeys = queryKeysFactory<[workspaceId: string]>('tokens');
export const leadKeys = queryKeysFactory<[workspaceId: string]>('leads');
export const planKeys = queryKeysFactory('plans');
export const subscriptionKeys = queryKeysFactory<[workspaceId: string]>('subscription');
export const paymentMethodKeys = queryKeysFactory<[workspaceId: string]>('payment-methods');
export const gitKeys = queryKeysFactory<[workspaceId: string, projectId: string]>('git');
export const envKeys = queryKeysFactory<[workspaceId: string, projectId: string]>('env');
export const buildKeys = queryKeysFactory<[workspaceId: string, projectId: string]>('builds');
export const previewKeys = queryKeysFactory<[workspaceId: string, projectId: string]>('previews');
export const notificationKeys = queryKeysFactory('notifications');
/** A project's forms (lists) and each form's submissions (details, keyed by the form): a change invalidates both, as counts move. */
export const formKeys = queryKeysFactory<[workspaceId: string, projectId: string]>('forms');
export const webhookKeys = queryKeysFactory<[workspaceId: string]>('webhooks');
/** GET /workspaces/:id/sso (issue 32). */
export const ssoKeys = queryKeysFactory<[workspaceId: string]>('sso');
/** GET /billing/usage, the spend cap and the invoices of a workspace's billing page. */
export const billingUsageKeys = queryKeysFactory<[workspaceId: string]>('billing-usage');
export const invoiceKeys = queryKeysFactory<[workspaceId: string]>('invoices');
/** A workspace's audit log (issue 32): its pages and its chain check. */
export const auditKeys = queryKeysFactory<[workspaceId: string]>('audit-log');
/** The signed-in person's sessions. */
export const sessionKeys = queryKeysFactory('sessions');
export const twoFactorKeys = queryKeysFactory('two-factor');
