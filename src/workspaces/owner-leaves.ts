import type { EntityManager } from 'typeorm';

/**
 * What losing an owner does beyond the membership: the port workspaces/ calls and
 * src/sso binds (an enforced SSO's break glass belongs to the owner who turned it on,
 * and their password sessions must not outlive it). sso sits above workspaces in the
 * layers, so member changes reach it through this class, like SsoPasswordPolicy for sign-in.
 */
export abstract class OwnerLeaves {
  /** Inside the member change's transaction: `userId` stopped being an owner of the workspace (demoted or removed). */
  abstract ownerLeft(manager: EntityManager, workspaceId: string, userId: string): Promise<void>;
}
