import type { INestApplication } from '@nestjs/common';
import { ModulesContainer, Reflector } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';

import { type RouteAccess, routeAccess } from '../access/authorize';
import type { ErrorStatus } from '../common/errors';
import { type DocumentedErrors, type ErrorCodeWithStatus, OPERATION_CONTRACT, type OperationContract } from './endpoint';

/**
 * Finishes the document @nestjs/swagger builds from the decorators, from the same
 * metadata the bearer guard reads (routeAccess), so what the document says about
 * access cannot drift from what the guard does:
 *
 * - `security: []` on public routes, the bearer requirement and a sentence naming
 *   the scope, role and credential kind on every other one (`x-access` too);
 * - readable operation ids (each route's @Endpoint);
 * - every error answer a route can give (400/401/402/403/404/409/413/415/422/5xx),
 *   each with the shared `Error` schema and `code` narrowed to the codes of that
 *   route and status: the guard's and the body parser's are derived from the route,
 *   the domain's are listed on each route's @Endpoint (from the services'
 *   throws; test/openapi checks real answers against them);
 * - nullable enums that list null, the configured public address in `servers`.
 */

type Json = Record<string, unknown>;
type Codes = DocumentedErrors;

const ERROR_SCHEMA = 'Error';
const ERROR_CODE_SCHEMA = 'ErrorCode';

/**
 * The declared codes as schemas: `ErrorCode` (all of them, the type of every error's
 * `code`) and one `<Module>ErrorCode` per module, so the SDK exports the unions a
 * client switches on.
 */
function errorCodeSchemas(declared: readonly DeclaredCode[]): Record<string, Json> {
  const byModule = new Map<string, string[]>();
  for (const { module, code } of declared) byModule.set(module, [...(byModule.get(module) ?? []), code]);
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

/** `<Controller>_<method>` (the id @nestjs/swagger gives by default) → the route's handler, which carries its @Endpoint. */
function handlers(app: INestApplication): Map<string, Function> {
  const found = new Map<string, Function>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Function | null;
      if (!controller?.prototype) continue;
      for (const key of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = Object.getOwnPropertyDescriptor(controller.prototype, key)?.value;
        if (key !== 'constructor' && typeof handler === 'function') found.set(`${controller.name}_${key}`, handler);
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
    // A workspace whose owner requires a second factor, for a JWT user without one (issue 32).
    add(403, 'two_factor_required');
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

/** One declared code of one module's catalog (src/error-codes.ts, declaredCodes). */
export interface DeclaredCode {
  module: string;
  code: string;
}

export interface DocumentOptions {
  /**
   * Every module's declared codes (src/error-codes.ts `declaredCodes()`), published as the
   * `ErrorCode` schemas. Given by the caller: the catalog imports every module, and this
   * builder sits below them.
   */
  codes: readonly DeclaredCode[];
  /** The API's public address (first API_HOSTS entry with PUBLIC_SCHEME and port), or undefined: relative to where the document is served. */
  serverUrl?: string;
}

export function finishOpenApiDocument(document: OpenAPIObject, app: INestApplication, options: DocumentOptions): OpenAPIObject {
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

  Object.assign(schemas, errorCodeSchemas(options.codes));

  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const op = (item as unknown as Record<string, Json | undefined>)[method];
      if (!op) continue;
      const key = String(op.operationId);
      const handler = routes.get(key);
      if (!handler) throw new Error(`OpenAPI: no handler found for operation ${key} (${method.toUpperCase()} ${path})`);
      const access = routeAccess(reflector, handler);
      const contract = reflector.get<OperationContract | undefined>(OPERATION_CONTRACT, handler);
      // Without it the operation would keep @nestjs/swagger's `Controller_method` id, which becomes the SDK's method name.
      if (!contract) throw new Error(`OpenAPI: ${key} (${method.toUpperCase()} ${path}) declares no @Endpoint`);
      op.operationId = contract.id;

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
      const errors = merge(generic, accessErrors(access, hasPathParams), contract.errors);

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
