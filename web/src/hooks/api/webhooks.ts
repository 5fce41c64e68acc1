import { type QueryClient, queryOptions } from '@tanstack/react-query';

import { api, call, inWorkspace, type Schemas } from '../../api';
import { type MutationOptions, useInvalidatingMutation } from './mutation';
import { webhookKeys } from './query-keys';

export const webhookQueries = {
  list: (workspaceId: string, page: number, limit: number) =>
    queryOptions({
      queryKey: webhookKeys.list([workspaceId], { page, limit }),
      queryFn: () => call(api.GET('/webhooks', { params: { query: { page, limit } }, headers: inWorkspace(workspaceId) })),
    }),
  deliveries: (workspaceId: string, webhookId: string, page: number, limit: number) =>
    queryOptions({
      queryKey: webhookKeys.detail([workspaceId], webhookId, { deliveries: true, page, limit }),
      queryFn: () =>
        call(api.GET('/webhooks/{webhookId}/deliveries', { params: { path: { webhookId }, query: { page, limit } }, headers: inWorkspace(workspaceId) })),
      // Pending deliveries change as the outbox sends them.
      refetchInterval: (q) => (q.state.data?.data.some((d) => d.status === 'pending') ? 2000 : false),
    }),
};

const invalidate = (workspaceId: string) => (qc: QueryClient) => qc.invalidateQueries({ queryKey: webhookKeys.all(workspaceId) });

export function useCreateWebhook(workspaceId: string, options?: MutationOptions<Schemas['WebhookWithSecretView'], Schemas['CreateWebhookDto']>) {
  return useInvalidatingMutation(
    (body: Schemas['CreateWebhookDto']) => call(api.POST('/webhooks', { body, headers: inWorkspace(workspaceId) })),
    invalidate(workspaceId),
    options,
  );
}

export function useUpdateWebhook(workspaceId: string, options?: MutationOptions<Schemas['WebhookView'], { id: string; body: Schemas['UpdateWebhookDto'] }>) {
  return useInvalidatingMutation(
    ({ id, body }: { id: string; body: Schemas['UpdateWebhookDto'] }) =>
      call(api.PATCH('/webhooks/{webhookId}', { params: { path: { webhookId: id } }, body, headers: inWorkspace(workspaceId) })),
    invalidate(workspaceId),
    options,
  );
}

export function useDeleteWebhook(workspaceId: string, options?: MutationOptions<unknown, string>) {
  return useInvalidatingMutation(
    (id: string) => call(api.DELETE('/webhooks/{webhookId}', { params: { path: { webhookId: id } }, headers: inWorkspace(workspaceId) })),
    invalidate(workspaceId),
    options,
  );
}

export function useTestWebhook(workspaceId: string, options?: MutationOptions<Schemas['WebhookDeliveryView'], string>) {
  return useInvalidatingMutation(
    (id: string) => call(api.POST('/webhooks/{webhookId}/test', { params: { path: { webhookId: id } }, headers: inWorkspace(workspaceId) })),
    invalidate(workspaceId),
    options,
  );
}

export function useRedeliver(workspaceId: string, options?: MutationOptions<Schemas['WebhookDeliveryView'], { id: string; deliveryId: string }>) {
  return useInvalidatingMutation(
    ({ id, deliveryId }: { id: string; deliveryId: string }) =>
      call(
        api.POST('/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', {
          params: { path: { webhookId: id, deliveryId } },
          headers: inWorkspace(workspaceId),
        }),
      ),
    invalidate(workspaceId),
    options,
  );
}
