import type { RouteAccess } from './authorize';

/** Test fixture: what a route declaring nothing reads as, with `overrides` declared. */
export const routeAccessWith = (overrides: Partial<RouteAccess> = {}): RouteAccess => ({
  isPublic: false,
  kind: null,
  scopes: [],
  roles: [],
  workspaceOptional: false,
  workspaceWide: false,
  workspaceIn: null,
  roleRefusal: null,
  ...overrides,
});
