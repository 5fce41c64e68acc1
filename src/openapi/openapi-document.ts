import type { INestApplication } from '@nestjs/common';
import { ModulesContainer, Reflector } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';

import { type RouteAccess, routeAccess } from '../auth/guard/authorize';
import type { ErrorStatus } from '../common/errors';
import { declaredCodes, type ErrorCodeWithStatus } from '../error-codes';

/**
 * Finishes the document @nestjs/swagger builds from the decorators, from the same
 * metadata the bearer guard reads (routeAccess), so what the document says about
 * access cannot drift from what the guard does:
 *
 * - `security: []` on public routes, the bearer requirement and a sentence naming
 *   the scope, role and credential kind on every other one (`x-access` too);
 * - readable operation ids (OPERATIONS below);
 * - every error answer a route can give (400/401/402/403/404/409/413/415/422/5xx),
 *   each with the shared `Error` schema and `code` narrowed to the codes of that
 *   route and status: the guard's and the body parser's are derived from the route,
 *   the domain's are listed per operation in OPERATIONS (from the services'
 *   throws; test/openapi checks real answers against them);
 * - nullable enums that list null, the configured public address in `servers`.
 */

type Json = Record<string, unknown>;
/** Codes by status, each typed against the declared codes of that status: a typo or a wrong status fails the build. */
type Codes = { [S in ErrorStatus]?: ErrorCodeWithStatus<S>[] };

interface OperationContract {
  /** The readable operationId. */
  id: string;
  /** Domain errors this operation answers beyond those derived from its route (auth, validation, body). */
  errors?: Codes;
}

const DEPLOY_ERRORS: Codes = {
  400: [
    'invalid_file',
    'invalid_path',
    'invalid_content',
    'blob_size_mismatch',
    'missing_blobs',
    'invalid_redirects',
    'invalid_headers',
    'invalid_idempotency_key',
  ],
  402: ['quota_exceeded'],
  403: ['forbidden'],
  409: ['project_deleted', 'idempotency_key_in_progress'],
  413: ['payload_too_large'],
  422: ['idempotency_key_reused'],
  503: ['storage_unavailable', 'storage_busy'],
};
const BILLING_ACCESS: Codes = { 403: ['owner_required', 'not_a_member', 'workspace_mismatch'], 404: ['not_found'] };

/**
 * Keyed by `<Controller>_<method>` (the id @nestjs/swagger gives by default). A route
 * missing here keeps a derived id; test/openapi/openapi-document.e2e-spec.ts fails on it.
 */
export const OPERATIONS: Record<string, OperationContract> = {
  HealthController_check: { id: 'getHealth' },
  // `invalid_session_mode`: an X-Session-Mode other than `cookie` (src/auth/sessions/session-cookie.ts).
  AuthController_register: {
    id: 'register',
    errors: { 400: ['invalid_session_mode'], 409: ['email_taken'], 429: ['rate_limited'], 503: ['password_hashing_busy'] },
  },
  AuthController_login: {
    id: 'login',
    errors: { 400: ['invalid_session_mode'], 401: ['invalid_login'], 429: ['rate_limited'], 503: ['password_hashing_busy'] },
  },
  AuthController_verifyEmail: { id: 'verifyEmail', errors: { 400: ['invalid_token', 'token_expired', 'token_used'], 409: ['email_taken'] } },
  AuthController_resendVerification: { id: 'resendVerificationEmail', errors: { 409: ['email_already_verified'], 429: ['rate_limited'] } },
  AuthController_requestPasswordReset: { id: 'requestPasswordReset', errors: { 429: ['rate_limited'] } },
  AuthController_confirmPasswordReset: {
    id: 'confirmPasswordReset',
    errors: { 400: ['invalid_token', 'token_expired', 'token_used'], 503: ['password_hashing_busy'] },
  },
  UsersMeController_me: { id: 'getCurrentUser' },
  UsersMeController_updateMe: { id: 'updateCurrentUser', errors: { 409: ['email_taken'], 429: ['rate_limited'] } },
  // `duplicate_refresh_cookie`: the refresh cookie twice in one request (one planted by a sibling host; src/auth/sessions/session-cookie.ts).
  AuthController_refresh: { id: 'refresh', errors: { 400: ['invalid_session_mode', 'duplicate_refresh_cookie'], 401: ['invalid_refresh_token'] } },
  AuthController_logout: { id: 'logout', errors: { 400: ['invalid_session_mode'] } },
  MeController_me: { id: 'getTokenContext' },
  AccessTokensController_create: {
    id: 'createAccessToken',
    errors: { 403: ['insufficient_scope', 'token_outlives_creator', 'project_bound_token'], 404: ['not_found'] },
  },
  AccessTokensController_list: { id: 'listAccessTokens' },
  AccessTokensController_revoke: { id: 'revokeAccessToken' },
  ProjectsController_list: { id: 'listProjects' },
  ProjectsController_create: {
    id: 'createProject',
    errors: { 400: ['invalid_slug'], 402: ['quota_exceeded'], 403: ['forbidden'], 409: ['slug_taken'], 503: ['password_hashing_busy'] },
  },
  ProjectsController_get: { id: 'getProject' },
  ProjectsController_update: {
    id: 'updateProject',
    errors: { 400: ['invalid_slug', 'invalid_domain'], 402: ['quota_exceeded'], 409: ['slug_taken', 'domain_taken'], 503: ['password_hashing_busy'] },
  },
  ProjectsController_remove: { id: 'deleteProject' },
  AnalyticsController_get: { id: 'getProjectAnalytics' },
  DomainsController_verify: { id: 'verifyDomain', errors: { 409: ['no_custom_domain', 'domain_changed'], 503: ['dns_timeout', 'dns_unavailable'] } },
  LazyDeployController_deploy: {
    id: 'deployLazy',
    errors: { ...DEPLOY_ERRORS, 400: [...DEPLOY_ERRORS[400]!, 'invalid_slug'], 409: [...DEPLOY_ERRORS[409]!, 'slug_taken'] },
  },
  DeploymentsController_deploy: { id: 'deployProject', errors: DEPLOY_ERRORS },
  // The deploy's own checks, answered before anything is uploaded or stored.
  DeployPreflightController_check: {
    id: 'preflightDeployment',
    errors: { ...DEPLOY_ERRORS, 400: [...DEPLOY_ERRORS[400]!, 'invalid_slug'], 409: [...DEPLOY_ERRORS[409]!, 'slug_taken'] },
  },
  DeploymentsController_list: { id: 'listDeployments' },
  DeploymentsController_get: { id: 'getDeployment' },
  DeploymentsController_promote: { id: 'promoteDeployment', errors: { 409: ['deployment_expired'] } },
  DeploymentsController_archive: { id: 'archiveDeployment', errors: { 409: ['deployment_expired'] } },
  BlobsController_put: {
    id: 'uploadBlob',
    errors: { 400: ['invalid_sha256', 'sha256_mismatch'], 413: ['payload_too_large'], 415: ['unsupported_media_type'], 503: ['storage_unavailable'] },
  },
  LeadsController_listWorkspace: { id: 'listWorkspaceLeads', errors: { 404: ['not_found'] } },
  LeadsController_listProject: { id: 'listProjectLeads' },
  LeadsController_export: { id: 'exportProjectLeads' },
  LeadsController_erase: { id: 'eraseLead' },
  WorkspacesController_list: { id: 'listWorkspaces' },
  WorkspacesController_create: { id: 'createWorkspace', errors: { 404: ['not_found'] } },
  WorkspacesController_get: { id: 'getWorkspace' },
  WorkspacesController_update: { id: 'updateWorkspace' },
  MembersController_list: { id: 'listMembers' },
  MembersController_invite: { id: 'inviteMember', errors: { 403: ['insufficient_role', 'email_not_verified'], 409: ['already_member'] } },
  MembersController_update: { id: 'updateMember', errors: { 403: ['insufficient_role'], 409: ['last_owner'] } },
  MembersController_remove: { id: 'removeMember', errors: { 403: ['insufficient_role', 'insufficient_scope'], 409: ['last_owner'] } },
  InvitationsController_list: { id: 'listInvitations' },
  InvitationsController_accept: { id: 'acceptInvitation', errors: { 403: ['email_not_verified'] } },
  BillingController_activate: {
    id: 'activatePlan',
    errors: {
      ...BILLING_ACCESS,
      400: ['invalid_payment_method'],
      402: ['payment_failed', 'payment_method_required'],
      403: [...BILLING_ACCESS[403]!, 'email_not_verified'],
      502: ['payment_provider_unavailable'],
    },
  },
  BillingController_cancel: { id: 'cancelPlan', errors: { ...BILLING_ACCESS, 409: ['no_subscription'], 502: ['payment_provider_unavailable'] } },
  BillingController_subscription: { id: 'getSubscription', errors: BILLING_ACCESS },
  BillingController_planTable: { id: 'listPlans' },
  BillingController_addPaymentMethod: {
    id: 'addPaymentMethod',
    errors: {
      ...BILLING_ACCESS,
      400: ['invalid_payment_method'],
      402: ['payment_failed'],
      409: ['payment_method_exists'],
      502: ['payment_provider_unavailable'],
    },
  },
  BillingController_listPaymentMethods: { id: 'listPaymentMethods', errors: BILLING_ACCESS },
  BillingController_removePaymentMethod: {
    id: 'removePaymentMethod',
    errors: { ...BILLING_ACCESS, 409: ['payment_method_required'], 502: ['payment_provider_unavailable'] },
  },
};

const ERROR_SCHEMA = 'Error';
const ERROR_CODE_SCHEMA = 'ErrorCode';

/**
 * The declared codes as schemas: `ErrorCode` (all of them, the type of every error's
 * `code`) and one `<Module>ErrorCode` per module, so the SDK exports the unions a
 * client switches on.
 */
function errorCodeSchemas(): Record<string, Json> {
  const byModule = new Map<string, string[]>();
  for (const { module, code } of declaredCodes()) byModule.set(module, [...(byModule.get(module) ?? []), code]);
  const pascal = (name: string) => name.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());
  const modules = [...byModule].map(([module, codes]) => ({ name: `${pascal(module)}${ERROR_CODE_SCHEMA}`, module, codes: [...codes].sort() }));
  return {
    [ERROR_CODE_SCHEMA]: {
      description: 'Stable, for programs: every code the service declares, by module. Each error answer lists the codes it can carry.',
      anyOf: modules.map((m) => ({ $ref: `#/components/schemas/${m.name}` })),
    },
    ...Object.fromEntries(modules.map((m) => [m.name, { type: 'string', description: `The ${m.module} module's codes`, enum: m.codes }])),
  };
}

/** The document's tags, in this order, with what a reader finds under each. */
const TAGS: Record<string, string> = {
  auth: 'Accounts and dashboard sessions (JWT and refresh token)',
  'access tokens': 'API tokens (`sk_live_…`) with scopes, and the token’s own context',
  projects: 'Projects: slug, default ttl, gate, custom domain',
  deployments: 'Deploying files (inline or by digest), listing, promoting and archiving deployments',
  blobs: 'Uploading file contents by SHA-256 for digest-first deploys',
  leads: 'Emails captured by email gates',
  workspaces: 'Workspaces, their plan and usage',
  members: 'Members of a workspace and invitations',
  billing: 'Plans, subscriptions and payment methods',
  health: 'Liveness and readiness',
};
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const;

const STATUS_TEXT: Record<number, string> = {
  400: 'The request is malformed; `message` names the field',
  401: 'Missing or invalid credentials',
  402: 'The plan does not allow it, or payment failed',
  403: 'The credential may not do this',
  404: 'Not found (or not visible to this credential)',
  408: 'The request body stopped arriving',
  409: 'Conflicts with the current state',
  413: 'The body is too large',
  415: 'Unsupported Content-Type',
  422: 'The Idempotency-Key was used with another request',
  502: 'The payment provider failed',
  503: 'A dependency is unavailable; retry (see Retry-After)',
};

/** `<Controller>_<method>` → the route's handler and controller, for the guard's metadata. */
function handlers(app: INestApplication): Map<string, { handler: Function; controller: Function }> {
  const found = new Map<string, { handler: Function; controller: Function }>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Function | null;
      if (!controller?.prototype) continue;
      for (const key of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = Object.getOwnPropertyDescriptor(controller.prototype, key)?.value;
        if (key !== 'constructor' && typeof handler === 'function') found.set(`${controller.name}_${key}`, { handler, controller });
      }
    }
  }
  return found;
}

/** The guard's own errors for a route with this access, by status. */
export function accessErrors(access: RouteAccess, hasPathParams: boolean): Codes {
  if (access.isPublic) return {};
  const codes: Codes = { 400: ['invalid_workspace_header'], 401: ['unauthorized'], 403: ['workspace_mismatch'] };
  const add = <S extends ErrorStatus>(status: S, code: ErrorCodeWithStatus<S>) =>
    ((codes as Record<S, ErrorCodeWithStatus<S>[]>)[status] = [...(codes[status] ?? []), code]);
  if (access.kind !== 'token') {
    add(403, 'not_a_member');
    if (!access.workspaceOptional) add(400, 'workspace_required');
  }
  if (access.kind !== null) add(403, 'wrong_credential_kind');
  if (access.scopes.length > 0) add(403, 'insufficient_scope');
  if (access.roles.length > 0) add(403, access.roleRefusal?.code ?? 'insufficient_role');
  if (access.workspaceWide) add(403, 'project_bound_token');
  if (hasPathParams) add(404, 'not_found');
  return codes;
}

/** One sentence for the operation's description: what credential and rights it takes. */
export function accessSentence(access: RouteAccess): string {
  if (access.isPublic) return '**Access:** public, no credential.';
  const credential =
    access.kind === 'token' ? 'an API token (`sk_live_…`) only' : access.kind === 'user' ? 'a dashboard JWT only' : 'an API token or a dashboard JWT';
  const parts = [`**Access:** ${credential}`];
  if (access.scopes.length > 0) {
    const scopes = access.scopes.map((s) => `\`${s}\``).join(', ');
    parts.push(`scope${access.scopes.length > 1 ? 's' : ''} ${scopes}${access.kind === 'token' ? '' : ' (a JWT user’s role must grant it)'}`);
  }
  if (access.roles.length > 0) parts.push(`role ${access.roles.map((r) => `\`${r}\``).join(' or ')}`);
  if (access.scopes.length === 0 && access.roles.length === 0) parts.push('no scope required');
  if (access.workspaceWide) parts.push('acts on the whole workspace (a project-bound token gets 403)');
  if (access.workspaceIn) parts.push(`the workspace is the ${access.workspaceIn}’s \`workspaceId\``);
  if (access.kind !== 'token') {
    parts.push(access.workspaceOptional ? 'with a JWT, X-Workspace-Id is optional' : 'with a JWT, send X-Workspace-Id');
  }
  return `${parts.join('; ')}.`;
}

function merge(...sets: Codes[]): Codes {
  const out: Partial<Record<number, string[]>> = {};
  for (const set of sets) {
    for (const [status, codes] of Object.entries(set)) {
      out[Number(status)] = [...new Set([...(out[Number(status)] ?? []), ...((codes as string[] | undefined) ?? [])])];
    }
  }
  return out as Codes;
}

/** Every schema object in the document: nullable enums get null among their values (OpenAPI 3.0 needs it there). */
function fixSchemas(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(fixSchemas);
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Json;
  if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
  Object.values(schema).forEach(fixSchemas);
}

export interface DocumentOptions {
  /** The API's public address (first API_HOSTS entry with PUBLIC_SCHEME and port), or undefined: relative to where the document is served. */
  serverUrl?: string;
}

export function finishOpenApiDocument(document: OpenAPIObject, app: INestApplication, options: DocumentOptions = {}): OpenAPIObject {
  const reflector = app.get(Reflector);
  const routes = handlers(app);
  const schemas = ((document.components ??= {}).schemas ??= {}) as unknown as Record<string, unknown>;
  schemas[ERROR_SCHEMA] = {
    type: 'object',
    description: 'The body of every error answer',
    required: ['statusCode', 'error', 'message', 'code'],
    properties: {
      statusCode: { type: 'integer', example: 404 },
      error: { type: 'string', example: 'Not Found', description: 'The HTTP reason phrase' },
      message: { type: 'string', example: 'Project proj_0123456789abcdefghijklmn not found', description: 'For people; a 400 names the field' },
      code: { $ref: `#/components/schemas/${ERROR_CODE_SCHEMA}` },
      requestId: { type: 'string' },
    },
    additionalProperties: true,
  };

  Object.assign(schemas, errorCodeSchemas());

  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const op = (item as unknown as Record<string, Json | undefined>)[method];
      if (!op) continue;
      const key = String(op.operationId);
      const route = routes.get(key);
      if (!route) throw new Error(`OpenAPI: no handler found for operation ${key} (${method.toUpperCase()} ${path})`);
      const access = routeAccess(reflector, route.handler, route.controller);
      const contract = OPERATIONS[key];
      if (contract) op.operationId = contract.id;

      op.security = access.isPublic ? [] : [{ bearer: [] }];
      op['x-access'] = {
        public: access.isPublic,
        credential: access.kind ?? 'any',
        scopes: access.scopes,
        roles: access.roles,
        workspaceWide: access.workspaceWide,
      };
      op.description = [op.description, accessSentence(access)].filter(Boolean).join('\n\n');

      const parameters = (op.parameters ?? []) as Json[];
      const hasPathParams = parameters.some((p) => p.in === 'path');
      const hasInput = parameters.length > 0 || op.requestBody !== undefined;
      const generic: Codes = {};
      // The validation pipe, and the text pipe (NUL, lone surrogates), on anything the route reads.
      if (hasInput) generic[400] = ['validation_failed'];
      if (op.requestBody !== undefined) {
        // The JSON body parser, before routing; the idle timeout of a body that stops arriving (src/common/connection-limits.ts).
        Object.assign(
          generic,
          merge(generic, { 400: ['invalid_json', 'body_too_complex'], 408: ['request_timeout'], 413: ['payload_too_large'], 415: ['unsupported_media_type'] }),
        );
      }
      const errors = merge(generic, accessErrors(access, hasPathParams), contract?.errors ?? {});

      const responses = (op.responses ??= {}) as Record<string, Json>;
      for (const [status, codes] of Object.entries(errors)) {
        if (!codes?.length) continue;
        const existing = responses[status];
        responses[status] = {
          description: (existing?.description as string | undefined) ?? STATUS_TEXT[Number(status)] ?? 'Error',
          content: {
            'application/json': {
              schema: {
                allOf: [
                  { $ref: `#/components/schemas/${ERROR_SCHEMA}` },
                  {
                    type: 'object',
                    properties: { statusCode: { type: 'integer', enum: [Number(status)] }, code: { type: 'string', enum: [...codes].sort() } },
                  },
                ],
              },
            },
          },
        };
      }
    }
  }
  fixSchemas(document);
  const used = new Set(
    Object.values(document.paths).flatMap((item) =>
      METHODS.flatMap((m) => ((item as unknown as Record<string, Json | undefined>)[m]?.tags as string[] | undefined) ?? []),
    ),
  );
  document.tags = [...Object.keys(TAGS).filter((name) => used.has(name)), ...[...used].filter((name) => !(name in TAGS)).sort()].map((name) => ({
    name,
    description: TAGS[name] ?? name,
  }));
  document.servers = [options.serverUrl ? { url: options.serverUrl, description: 'This service' } : { url: '/', description: 'Where this document is served' }];
  return document;
}
