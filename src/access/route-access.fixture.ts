import type { RouteAccess } from './authorize';
import { DEFAULT_ACCESS } from './decorators';

/** Test fixture: what a route declaring nothing reads as, with `overrides` declared. */
export const routeAccessWith = (overrides: Partial<RouteAccess> = {}): RouteAccess => ({ ...DEFAULT_ACCESS, ...overrides });
