import { queryOptions } from '@tanstack/react-query';

import { api, ApiError, call, type EnvVarBody, type GitSettings, type GitSettingsBody, inWorkspace, type WebhookSecret } from '../../api';
import { type MutationOptions, useInvalidatingMutation } from './mutation';
import { envKeys, gitKeys } from './query-keys';

export const gitQueries = {
  /** The project's Git settings; null when no repository is connected (404 `git_not_connected`). */
  settings: (workspaceId: string, projectId: string) =>
    queryOptions({
      queryKey: gitKeys.detail([workspaceId, projectId], 'settings'),
      queryFn: async (): Promise<GitSettings | null> => {
        try {
          return await call(api.GET('/projects/{projectId}/git', { params: { path: { projectId } }, headers: inWorkspace(workspaceId) }));
        } catch (err) {
          if (err instanceof ApiError && err.code === 'git_not_connected') return null;
          throw err;
        }
      },
    }),
  envVars: (workspaceId: string, projectId: string) =>
    queryOptions({
      queryKey: envKeys.list([workspaceId, projectId]),
      queryFn: () => call(api.GET('/projects/{projectId}/env', { params: { path: { projectId } }, headers: inWorkspace(workspaceId) })),
    }),
};

export function useSaveGitSettings(workspaceId: string, projectId: string, options?: MutationOptions<GitSettings, GitSettingsBody>) {
  return useInvalidatingMutation(
    (body: GitSettingsBody) => call(api.PUT('/projects/{projectId}/git', { params: { path: { projectId } }, body, headers: inWorkspace(workspaceId) })),
    (qc) => qc.invalidateQueries({ queryKey: gitKeys.all(workspaceId, projectId) }),
    options,
  );
}

/** A new webhook secret (the old one stops working at once); the answer is the only time it is shown. */
export function useRotateWebhookSecret(workspaceId: string, projectId: string, options?: MutationOptions<WebhookSecret, void>) {
  return useInvalidatingMutation(
    () => call(api.POST('/projects/{projectId}/git/webhook-secret', { params: { path: { projectId } }, headers: inWorkspace(workspaceId) })),
    (qc) => qc.invalidateQueries({ queryKey: gitKeys.all(workspaceId, projectId) }),
    options,
  );
}

export function useDisconnectGit(workspaceId: string, projectId: string, options?: MutationOptions<unknown, void>) {
  return useInvalidatingMutation(
    (): Promise<unknown> => call(api.DELETE('/projects/{projectId}/git', { params: { path: { projectId } }, headers: inWorkspace(workspaceId) })),
    (qc) => qc.invalidateQueries({ queryKey: gitKeys.all(workspaceId, projectId) }),
    options,
  );
}

export function usePutEnvVar(workspaceId: string, projectId: string, options?: MutationOptions<unknown, { name: string; body: EnvVarBody }>) {
  return useInvalidatingMutation(
    ({ name, body }: { name: string; body: EnvVarBody }): Promise<unknown> =>
      call(api.PUT('/projects/{projectId}/env/{name}', { params: { path: { projectId, name } }, body, headers: inWorkspace(workspaceId) })),
    (qc) => qc.invalidateQueries({ queryKey: envKeys.all(workspaceId, projectId) }),
    options,
  );
}

export function useDeleteEnvVar(workspaceId: string, projectId: string, options?: MutationOptions<unknown, string>) {
  return useInvalidatingMutation(
    (name: string): Promise<unknown> =>
      call(api.DELETE('/projects/{projectId}/env/{name}', { params: { path: { projectId, name } }, headers: inWorkspace(workspaceId) })),
    (qc) => qc.invalidateQueries({ queryKey: envKeys.all(workspaceId, projectId) }),
    options,
  );
}
