import { applyDecorators, SetMetadata } from '@nestjs/common';

import { Access, type AccessDeclaration } from '../access/decorators';
import type { CodesWithStatus, ErrorCatalog, ErrorStatus } from '../common/errors';

/**
 * Where the catalog of every module's codes is registered for the types below:
 * src/error-codes.ts (the composition root, which imports every module's catalog)
 * adds `catalog: AllErrors` by declaration merging. The route contract sits below the
 * features that use it, so it cannot import that catalog; the types still see it,
 * since the root is part of every build of src/.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by declaration merging
export interface ErrorCatalogRegistry {}
type RegisteredCatalog = ErrorCatalogRegistry extends { catalog: infer C extends ErrorCatalog } ? C : Record<never, never>;

/** The declared codes answered with status S. */
export type ErrorCodeWithStatus<S extends ErrorStatus> = CodesWithStatus<RegisteredCatalog, S>;

/** Codes by status, each typed against the declared codes of that status: a typo or a wrong status fails the build. */
export type DocumentedErrors = { [S in ErrorStatus]?: ErrorCodeWithStatus<S>[] };

/** What the OpenAPI document says about a route beyond what @nestjs/swagger and the access derive. */
export interface OperationContract {
  /** The readable operationId (the SDK's method name). */
  id: string;
  /**
   * Domain errors this route answers beyond those derived from its access, its input
   * and its body (src/openapi/openapi-document.ts): from the services' throws;
   * test/openapi checks real answers against them.
   */
  errors: DocumentedErrors;
}

export const OPERATION_CONTRACT = 'openapi:operation';

/**
 * What a route writes to its workspace's audit log (issue 32): the action of the entry
 * its change records (`project.deleted`), or why it changes nothing worth auditing
 * (`{ none: 'reads only' }`). Every mutating route declares one (test/audit checks);
 * src/audit reads it to know which requests must leave an entry.
 */
export type AuditDeclaration = string | { none: string };

export const AUDIT_DECLARATION = 'audit:declaration';

export type EndpointContract = AccessDeclaration & { id: string; errors?: DocumentedErrors; audit?: AuditDeclaration };

/**
 * A documented route's contract in one place: who may call it (what the bearer guard
 * enforces, src/access/decorators.ts), its operationId and the domain errors it
 * documents. The OpenAPI document is built from the same metadata, so what it says
 * about access cannot drift from what the guard does.
 */
export function Endpoint({ id, errors = {}, audit, ...access }: EndpointContract): MethodDecorator {
  const contract: OperationContract = { id, errors };
  return applyDecorators(
    Access(access as AccessDeclaration),
    SetMetadata(OPERATION_CONTRACT, contract),
    ...(audit === undefined ? [] : [SetMetadata(AUDIT_DECLARATION, audit)]),
  );
}
