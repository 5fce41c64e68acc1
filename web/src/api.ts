import { ApiError } from './errors';
import type { components } from './sdk';
import { createTransport } from './transport';

export { ApiError };
export { call, errorOf, inWorkspace } from './transport';

/** The API's own schemas (packages/sdk/generated/schema.ts, generated from the service's OpenAPI document): drift is a compile error. */
export type Schemas = components['schemas'];
export type Project = Schemas['ProjectView'];
export type Deployment = Schemas['DeploymentView'];
export type Workspace = Schemas['WorkspaceView'];

/** The page's one transport: its session, its typed client, its uploads. */
export const transport = createTransport({ baseUrl: window.location.origin });
export const { api, session } = transport;

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
