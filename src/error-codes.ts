import { authError } from './access/auth.errors';
import { accessTokensError } from './access-tokens/access-tokens.errors';
import { passkeysError } from './auth/passkeys/passkeys.errors';
import { sessionsError } from './auth/sessions/sessions.errors';
import { twoFactorError } from './auth/two-factor/two-factor.errors';
import { blobsError } from './blobs/blobs.errors';
import { buildsError } from './builds/builds.errors';
import { type CodesWithStatus, commonError, type ErrorStatus } from './common/errors';
import { idempotencyError } from './common/idempotency/idempotency.errors';
import { deploymentsError } from './deployments/deployments.errors';
import { gitError } from './git/git.errors';
import { hooksError } from './hooks/hooks.errors';
import { internalError } from './internal/internal.errors';
import { projectsError } from './projects/projects.errors';
import { billingError } from './quotas/billing.errors';
import { domainsError } from './shared/custom-domain/domains.errors';
import { ssoError } from './sso/sso.errors';
import { storageError } from './storage/storage.errors';
import { usersError } from './users/users.errors';
import { webhooksError } from './webhooks/webhooks.errors';
import { workspacesError } from './workspaces/workspaces.errors';

/**
 * Every module's declared error codes, in one list: the OpenAPI document types its
 * per-route codes against them and publishes them (schemas `ErrorCode` and
 * `<Module>ErrorCode`), so the SDK can switch on them. A new `<module>.errors.ts`
 * goes here.
 */
export const ERROR_MODULES = [
  commonError,
  idempotencyError,
  authError,
  usersError,
  workspacesError,
  accessTokensError,
  projectsError,
  domainsError,
  deploymentsError,
  storageError,
  blobsError,
  billingError,
  internalError,
  gitError,
  buildsError,
  hooksError,
  webhooksError,
  sessionsError,
  passkeysError,
  ssoError,
  twoFactorError,
] as const;

type Catalogs = (typeof ERROR_MODULES)[number]['codes'];
type Merge<U> = (U extends unknown ? (k: U) => void : never) extends (k: infer I) => void ? { [K in keyof I]: I[K] } : never;
/** All declared codes with their statuses. */
export type AllErrors = Merge<Catalogs>;
export type ErrorCode = keyof AllErrors & string;
/** The declared codes answered with status S. */
export type ErrorCodeWithStatus<S extends ErrorStatus> = CodesWithStatus<AllErrors, S>;

// The route contract (src/openapi/endpoint.ts) types each route's documented codes
// against this catalog without importing it (it sits below the features).
declare module './openapi/endpoint' {
  interface ErrorCatalogRegistry {
    catalog: AllErrors;
  }
}

/**
 * Declared codes that no route of the OpenAPI document lists, and why. Every other
 * declared code is listed on at least one route (src/error-codes.spec.ts).
 */
export const CODES_NOT_PER_ROUTE: Partial<Record<ErrorCode, string>> = {
  internal_error: 'a 500 is a bug, never part of a contract',
  database_unavailable: 'any route, while the database is down or restarting',
  certificate_not_allowed: 'GET /internal/tls/allowed is for the TLS proxy and not in the document',
  error: 'fallback for a framework error whose status has no code; none is thrown today',
  payment_required: 'fallback for a framework 402; none is thrown today',
  method_not_allowed: 'fallback for a framework 405; none is thrown today',
  conflict: 'fallback for a framework 409; none is thrown today',
  unprocessable_entity: 'fallback for a framework 422; none is thrown today',
  service_unavailable: 'fallback for a framework 503; none is thrown today',
};

/** `module` → its codes, for the document and the tests. */
export function declaredCodes(): { module: string; code: string; statuses: ErrorStatus[] }[] {
  return ERROR_MODULES.flatMap((m) =>
    Object.entries(m.codes as Record<string, ErrorStatus | readonly ErrorStatus[]>).map(([code, s]) => ({
      module: m.module,
      code,
      statuses: typeof s === 'number' ? [s] : [...s],
    })),
  );
}
