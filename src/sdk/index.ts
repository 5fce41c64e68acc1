/**
 * The statichost TypeScript SDK (Node 20+): a typed client whose types are
 * generated from the service's OpenAPI document, plus digest-first deploys of
 * local files. `npm run sdk:generate` refreshes schema.ts from the service.
 */
export { StatichostClient, type StatichostApi, type StatichostClientOptions, type ResponseBody, type BlobUploadResult } from './client';
export { StatichostApiError, StatichostConnectionError, type ApiErrorBody, type ErrorCode, type HttpStatusCode, type ModuleErrorCodes } from './errors';
export { collectFiles, hashFiles, isIgnored, isInside, sha256OfFile, type CollectedFiles, type LocalFile } from './files';
export { deployDigestFirst, preflightDeploy, type DeployPreflight, type DeployProgress, type DigestDeployOptions, type DigestDeployResult, type LazyDeployment } from './deploy';
export type { components, operations, paths } from './generated/schema';
/** `GET /projects/{projectId}/analytics`: `client.call(client.api.GET('/projects/{projectId}/analytics', …))`. */
export type ProjectAnalytics = import('./generated/schema').components['schemas']['AnalyticsDto'];
