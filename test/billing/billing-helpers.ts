import type { Response } from 'supertest';

import type { TestApp } from '../helpers/app';
import { asUser, bearer, createApiToken, registerUser, type UserSession } from '../helpers/identity';

export interface Tenant {
  owner: UserSession;
  workspaceId: string;
  /** An API token with deploy, read and admin scopes. */
  token: string;
}

/** A new account with its own workspace (on the free plan) and a deploy token. */
export async function newTenant(t: TestApp): Promise<Tenant> {
  const owner = await registerUser(t);
  const token = (await createApiToken(t, owner, { scopes: ['deploy', 'read', 'admin'] })).token;
  return { owner, workspaceId: owner.workspaceId, token };
}

export const createProject = (t: TestApp, tenant: Tenant, body: object) => t.http().post('/projects').set(asUser(tenant.owner)).send(body);

/** A lazy deploy (POST /v1/deployments) with the tenant's token. */
export const lazyDeploy = (t: TestApp, tenant: Tenant, slug: string, files: { path: string; content: string }[], extra: object = {}) =>
  t
    .http()
    .post('/v1/deployments')
    .set(bearer(tenant.token))
    .send({ project_slug: slug, files, ...extra });

/** `n` bytes of one repeated character: distinct characters make distinct blobs. */
export const bytes = (char: string, n: number) => char.repeat(n);

export async function saveCard(t: TestApp, tenant: Tenant, token = 'pm_card_visa'): Promise<Response> {
  const res = await t
    .http()
    .post('/billing/payment-methods')
    .set(bearer(tenant.owner.accessToken))
    .send({ workspaceId: tenant.workspaceId, paymentMethodToken: token });
  if (res.status !== 201) throw new Error(`save payment method: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
}

export const activate = (t: TestApp, session: { accessToken: string }, workspaceId: string, tier: string, interval = 'month') =>
  t.http().post('/billing/activate-plan').set(bearer(session.accessToken)).send({ workspaceId, tier, interval });

/** Saves a card (when none is saved) and activates `tier`; throws unless it answers 200. */
export async function upgrade(t: TestApp, tenant: Tenant, tier: 'pro' | 'team', interval: 'month' | 'year' = 'month'): Promise<void> {
  const saved = await t.dataSource.query('SELECT 1 FROM payment_methods WHERE workspace_id = $1', [tenant.workspaceId]);
  if (saved.length === 0) await saveCard(t, tenant);
  const res = await activate(t, tenant.owner, tenant.workspaceId, tier, interval);
  if (res.status !== 200) throw new Error(`activate ${tier}: ${res.status} ${JSON.stringify(res.body)}`);
}

export const workspace = async (t: TestApp, tenant: Tenant) =>
  (await t.http().get(`/workspaces/${tenant.workspaceId}`).set(bearer(tenant.owner.accessToken)).expect(200)).body;

/** Statuses of concurrent responses, counted: `{ 201: 1, 402: 9 }`. */
export function tally(responses: { status: number }[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const r of responses) out[r.status] = (out[r.status] ?? 0) + 1;
  return out;
}
