/**
 * The statichost TypeScript SDK (Node 20+): a typed client whose types are
 * generated from the service's OpenAPI document, plus digest-first deploys of
 * local files. `npm run sdk:generate` refreshes schema.ts from the service.
 */
export {
  type Build,
  type BuildStatus,
  FINISHED_BUILD_STATUSES,
  followBuildLogs,
  type FollowBuildLogsOptions,
  getBuild,
  isBuildFinished,
  readBuildLog,
  waitForBuild,
  type WaitForBuildOptions,
} from './builds';
export { type BlobUploadResult, type ResponseBody, type StatichostApi, StatichostClient, type StatichostClientOptions } from './client';
export {
  deployDigestFirst,
  type DeployPreflight,
  type DeployProgress,
  type DigestDeployOptions,
  type DigestDeployResult,
  type LazyDeployment,
  preflightDeploy,
} from './deploy';
export { type ApiErrorBody, type ErrorCode, type HttpStatusCode, type ModuleErrorCodes, StatichostApiError, StatichostConnectionError } from './errors';
export { type CollectedFiles, collectFiles, hashFiles, isIgnored, isInside, type LocalFile, sha256OfFile } from './files';
export type { components, operations, paths } from './generated/schema';
/** `GET /projects/{projectId}/analytics`: `client.call(client.api.GET('/projects/{projectId}/analytics', …))`. */
export type ProjectAnalytics = import('./generated/schema').components['schemas']['AnalyticsDto'];
