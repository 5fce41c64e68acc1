import { badRequest } from '../common/errors';

/** Token scopes (spec: `deploy`; the rest are ours, see docs/decisions.md). */
export const SCOPES = ['deploy', 'read', 'delete', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export const ROLES = ['owner', 'admin', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Who is calling, resolved once per request by the bearer guard from either an
 * `sk_live_` API token or a dashboard JWT.
 */
export interface Principal {
  kind: 'token' | 'user';
  /** The workspace the request acts in: the token's, or the JWT's X-Workspace-Id (null when a route needs none). */
  workspaceId: string | null;
  /** What the caller may do in that workspace: the token's scopes, or the user's role mapped to scopes. */
  scopes: Scope[];
  userId?: string;
  tokenId?: string;
  role?: Role;
  /** Set for a project-bound token: it sees that project alone. */
  projectId?: string | null;
  /** A JWT user's sign-in session (the refresh-token family); logging out ends it. */
  sessionId?: string;
}

/** The workspace a principal acts in; routes that reach here always have one. */
export function workspaceOf(principal: Principal): string {
  if (!principal.workspaceId) throw badRequest('X-Workspace-Id header is required');
  return principal.workspaceId;
}
