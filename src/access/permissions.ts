import { type Role, type Scope, SCOPES } from '../shared/principal';

/**
 * What a member's role lets them do, in the token scopes' terms. Admins and owners
 * hold every scope; what only owners may do (billing, owner changes) is checked by
 * role (`roles: ['owner']` and the member rules), not by scope.
 */
export const ROLE_SCOPES: Readonly<Record<Role, readonly Scope[]>> = {
  viewer: ['read'],
  admin: SCOPES,
  owner: SCOPES,
};

export function scopesForRole(role: Role): Scope[] {
  return [...ROLE_SCOPES[role]];
}

/** The scopes of `required` that `held` lacks, in canonical order. */
export function missingScopes(required: readonly Scope[], held: readonly Scope[]): Scope[] {
  return sortScopes(required.filter((scope) => !held.includes(scope)));
}

/** Scopes without duplicates, in the order of SCOPES, so stored and returned lists are stable. */
export function sortScopes(scopes: readonly Scope[]): Scope[] {
  return SCOPES.filter((scope) => scopes.includes(scope));
}
