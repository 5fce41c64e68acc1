import type { EntityManager } from 'typeorm';

import type { Scope } from '../shared/principal';

/**
 * What a member's change does to the API tokens they made: the port workspaces/ calls
 * and access-tokens/ implements (AccessTokensModule binds MEMBER_TOKENS). access-tokens
 * builds on workspaces (its rows belong to one), so workspaces reaches it through this
 * interface instead of importing it (issue 27).
 */
export interface MemberTokens {
  /** Inside the member change's transaction: revoke the person's tokens in the workspace that hold a scope outside `allowed`. */
  revokeForUser(manager: EntityManager, workspaceId: string, userId: string, allowed: Scope[]): Promise<void>;
}

export const MEMBER_TOKENS = Symbol('MemberTokens');
