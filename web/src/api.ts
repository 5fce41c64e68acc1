import createClient from 'openapi-fetch';

import type { components, paths } from '../../packages/sdk/generated/schema';
import { ApiError } from './errors';
import { accessToken, refreshSession, sessionEnded } from './session';

export { ApiError };

/** The API's own schemas (packages/sdk/generated/schema.ts, generated from the service's OpenAPI document): drift is a compile error. */
export type Schemas = components['schemas'];
export type Project = Schemas['ProjectView'];
export type Deployment = Schemas['DeploymentView'];
export type Workspace = Schemas['WorkspaceView'];

/** The workspace the signed-in pages act in (from the URL), sent as X-Workspace-Id. */
let workspaceId: string | undefined;
export function useWorkspaceHeader(id: string | undefined): void {
  workspaceId = id;
}
export function currentWorkspaceId(): string | undefined {
  return workspaceId;
}

/**
 * Adds the in-memory access JWT and the workspace; on a 401 with a token, refreshes the
 * session once (cookie) and retries, so an expired JWT never reaches the user. When the
 * refresh fails too, the session has ended: the app sends the user to sign in.
 */
export async function authorizedFetch(input: Request): Promise<Response> {
  const retry = input.clone();
  const send = async (request: Request, token: string | null) => {
    if (token && !request.headers.has('Authorization')) request.headers.set('Authorization', `Bearer ${token}`);
    if (workspaceId && !request.headers.has('X-Workspace-Id')) request.headers.set('X-Workspace-Id', workspaceId);
    return fetch(request);
  };
  const token = await accessToken();
  const response = await send(input, token);
  if (response.status !== 401 || !token) return response;
  const fresh = await refreshSession(true);
  if (!fresh) {
    sessionEnded();
    return response;
  }
  return send(retry, fresh);
}

export const api = createClient<paths>({ baseUrl: window.location.origin, fetch: authorizedFetch });

/** Turns any failed answer into an ApiError with the service's message. */
export async function errorOf(response: Response, body?: unknown): Promise<ApiError> {
  let parsed = body as Record<string, unknown> | undefined;
  if (parsed === undefined) parsed = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  const message = typeof parsed?.message === 'string' ? parsed.message : `The server answered ${response.status} ${response.statusText}`;
  const code = typeof parsed?.code === 'string' ? parsed.code : `http_${response.status}`;
  return new ApiError(response.status, code, message, parsed ?? {});
}

/** The data of an openapi-fetch answer, or an ApiError. */
export async function call<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await pending;
  } catch (err) {
    throw new ApiError(0, 'network_error', `Could not reach the server: ${(err as Error).message}`);
  }
  const { data, error, response } = result;
  if (!response.ok || error !== undefined) throw await errorOf(response, error);
  return data as T;
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
