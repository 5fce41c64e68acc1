import { ApiError } from './errors';
import type { components, paths } from './sdk';
import { createTransport } from './transport';

export { ApiError };
export { call, errorOf, inWorkspace } from './transport';

/** The API's own schemas (packages/sdk/generated/schema.ts, generated from the service's OpenAPI document): drift is a compile error. */
export type Schemas = components['schemas'];
export type Project = Schemas['ProjectView'];
export type Deployment = Schemas['DeploymentView'];
export type Workspace = Schemas['WorkspaceView'];

/** The JSON an operation answers with `status`, or takes as its body, by path: no DTO class name to keep in step with. */
type Answer<Op, Status extends number = 200> = Op extends { responses: { [S in Status]: { content: { 'application/json': infer B } } } } ? B : never;
type Body<Op> = Op extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

export type Forge = 'github' | 'gitlab' | 'gitea' | 'forgejo';

/*
 * PENDING-SDK: issue 29's fields and routes (team contract), added here until the hooks
 * and previews branches regenerate the SDK. Optional here, so today's answers still type;
 * once the generated schema has them (required) these intersections change nothing and go.
 */
export type GitSettings = Answer<paths['/projects/{projectId}/git']['get']> & {
  hasWebhookSecret?: boolean;
  buildForkPullRequests?: boolean;
  forge?: Forge | null;
};
export type GitSettingsBody = Body<paths['/projects/{projectId}/git']['put']> & { buildForkPullRequests?: boolean; forge?: Forge | null };
export type EnvVar = Answer<paths['/projects/{projectId}/env']['get']>['data'][number];
export type EnvVarBody = Body<paths['/projects/{projectId}/env/{name}']['put']>;
export type Build = Answer<paths['/projects/{projectId}/builds/{buildId}']['get']> & {
  fork?: boolean;
  forgeStatus?: 'pending' | 'posted' | 'failed' | null;
  forgeError?: string | null;
};
export type WebhookSecret = { webhookUrl: string; secret: string };
export type Preview = {
  alias: string;
  kind: 'branch' | 'pull_request';
  branch: string;
  pullRequest: number | null;
  url: string;
  deploymentId: string;
  buildId: string;
  commitSha: string;
  createdAt: string;
  updatedAt: string;
};
export type PreviewPage = { data: Preview[]; meta: Schemas['PageMetaView'] };

/** The page's one transport: its session, its typed client, its uploads. */
export const transport = createTransport({ baseUrl: window.location.origin });
export const { api, session } = transport;

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
