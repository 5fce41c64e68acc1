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

export type GitSettings = Answer<paths['/projects/{projectId}/git']['get']>;
export type GitSettingsBody = Body<paths['/projects/{projectId}/git']['put']>;
export type Forge = NonNullable<GitSettings['forge']>;
export type WebhookSecret = Answer<paths['/projects/{projectId}/git/webhook-secret']['post']>;
export type EnvVar = Answer<paths['/projects/{projectId}/env']['get']>['data'][number];
export type EnvVarBody = Body<paths['/projects/{projectId}/env/{name}']['put']>;
export type Build = Answer<paths['/projects/{projectId}/builds/{buildId}']['get']>;
export type Preview = Answer<paths['/projects/{projectId}/previews']['get']>['data'][number];

/** The page's one transport: its session, its typed client, its uploads. */
export const transport = createTransport({ baseUrl: window.location.origin });
export const { api, session } = transport;

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
