import { randomBytes } from 'node:crypto';

import type { Response } from 'supertest';

import type { TestApp } from './app';

/**
 * Accounts, sessions and API tokens for e2e tests, made through the real HTTP API.
 *
 * A JWT verifies only on an instance with the same JWT_SECRET: each test app
 * generates its own in its own DATA_DIR, so when two apps share a database pass
 * `env: { JWT_SECRET }` to both (API tokens work across instances regardless).
 */

export interface UserSession {
  accessToken: string;
  refreshToken: string;
  userId: string;
  /** The personal workspace created with the account (the user owns it). */
  workspaceId: string;
  email: string;
  password: string;
  name: string;
}

export interface ApiToken {
  id: string;
  /** The `sk_live_` secret. */
  token: string;
  /** The whole create response. */
  body: Record<string, unknown>;
}

function expectStatus(res: Response, status: number, what: string): void {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
}

export function uniqueEmail(label = 'user'): string {
  return `${label}-${randomBytes(5).toString('hex')}@example.test`;
}

/** A new account (through POST /auth/register) with its own workspace. */
export async function registerUser(t: TestApp, overrides: { email?: string; password?: string; name?: string } = {}): Promise<UserSession> {
  const email = overrides.email ?? uniqueEmail();
  const password = overrides.password ?? 'correct horse battery staple';
  const name = overrides.name ?? 'Test User';
  const res = await t.http().post('/auth/register').send({ email, password, name });
  expectStatus(res, 201, `register ${email}`);
  return {
    accessToken: res.body.accessToken,
    refreshToken: res.body.refreshToken,
    userId: res.body.user.id,
    workspaceId: res.body.workspace.id,
    email: res.body.user.email,
    password,
    name,
  };
}

/** A fresh session for an existing account (POST /auth/login); `workspaceId` is the one given. */
export async function loginUser(t: TestApp, user: { email: string; password: string; workspaceId: string; name?: string }): Promise<UserSession> {
  const res = await t.http().post('/auth/login').send({ email: user.email, password: user.password });
  expectStatus(res, 200, `login ${user.email}`);
  return {
    accessToken: res.body.accessToken,
    refreshToken: res.body.refreshToken,
    userId: res.body.user.id,
    workspaceId: user.workspaceId,
    email: res.body.user.email,
    password: user.password,
    name: res.body.user.name,
  };
}

/** An API token in the session's workspace (POST /access-tokens with the user's JWT). */
export async function createApiToken(
  t: TestApp,
  session: { accessToken: string; workspaceId: string },
  opts: { scopes: string[]; projectId?: string; name?: string; expires_at?: string },
): Promise<ApiToken> {
  const res = await t
    .http()
    .post('/access-tokens')
    .set(asUser(session))
    .send({ name: opts.name ?? `token ${opts.scopes.join('+')}`, scopes: opts.scopes, projectId: opts.projectId, expires_at: opts.expires_at });
  expectStatus(res, 201, 'create API token');
  return { id: res.body.id, token: res.body.token, body: res.body };
}

/**
 * The token of the newest verification link mailed to `email`, read from the outbox
 * (tests send mail by hand, so it is still there), or undefined.
 */
export async function mailedToken(t: TestApp, email: string, template: 'verify_email' | 'password_reset' = 'verify_email'): Promise<string | undefined> {
  const rows: { payload: { data: { link: string } } }[] = await t.dataSource.query(
    `SELECT payload FROM outbox_messages WHERE kind = 'mail' AND payload->>'to' = $1 AND payload->>'template' = $2 ORDER BY created_at DESC LIMIT 1`,
    [email, template],
  );
  return rows[0] ? (new URL(rows[0].payload.data.link).searchParams.get('token') ?? undefined) : undefined;
}

/** Confirms the user's address the way a person does: the mailed link's token to POST /auth/verify-email. No-op when already verified. */
export async function verifyEmail(t: TestApp, user: { userId: string; email: string }): Promise<void> {
  const [row] = await t.dataSource.query('SELECT email_verified_at FROM users WHERE id = $1', [user.userId]);
  if (row?.email_verified_at) return;
  const token = await mailedToken(t, user.email);
  if (!token) throw new Error(`no verification mail to ${user.email} in the outbox`);
  expectStatus(await t.http().post('/auth/verify-email').send({ token }), 200, `verify ${user.email}`);
}

/**
 * Makes `member` an active member of `owner`'s workspace with `role`: the owner
 * invites their email, the member accepts. Returns the member id (`mem_...`).
 */
export async function addMember(t: TestApp, owner: UserSession, member: UserSession, role: 'owner' | 'admin' | 'viewer'): Promise<string> {
  // Only a verified address may take an invitation.
  await verifyEmail(t, member);
  const invite = await t.http().post(`/workspaces/${owner.workspaceId}/members`).set(asUser(owner)).send({ email: member.email, role });
  expectStatus(invite, 201, `invite ${member.email}`);
  const accept = await t.http().post(`/invitations/${invite.body.id}/accept`).set(bearer(member.accessToken));
  expectStatus(accept, 200, `accept invitation ${invite.body.id}`);
  return invite.body.id;
}

/** Headers of a dashboard request: the JWT and the workspace to act in (the session's own by default). */
export function asUser(session: { accessToken: string; workspaceId: string }, workspaceId = session.workspaceId): Record<string, string> {
  return { Authorization: `Bearer ${session.accessToken}`, 'X-Workspace-Id': workspaceId };
}

/** The Authorization header alone: for an API token, or a JWT on a route that needs no workspace. */
export function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}
