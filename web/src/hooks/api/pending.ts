import { errorOf, inWorkspace, transport } from '../../api';

/**
 * PENDING-SDK: a JSON call to a route of issue 29 that the generated SDK does not know
 * yet (its types are the contract's, in ../../api.ts). Same transport as `api` (the
 * session's JWT, one refresh on a 401), same errors as `call`. Replaced by `api.GET` /
 * `api.POST` once the SDK is regenerated with the route.
 */
export async function pendingCall<T>(method: 'GET' | 'POST', path: string, workspaceId: string): Promise<T> {
  const response = await transport.authorizedFetch(new Request(new URL(path, window.location.origin), { method, headers: inWorkspace(workspaceId) }));
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as T;
}
