import { queryOptions, useQuery } from '@tanstack/react-query';

import { api, call, type Schemas } from '../../api';
import { type MutationOptions, useInvalidatingMutation } from './mutation';
import { notificationKeys } from './query-keys';

export type NotificationSettings = Schemas['NotificationSettingsView'];
export type WorkspaceNotificationSettings = Schemas['WorkspaceNotificationSettingsView'];
export type NotificationChange = Schemas['UpdateNotificationSettingsDto'];

export const notificationQuery = () => queryOptions({ queryKey: notificationKeys.all(), queryFn: () => call(api.GET('/users/me/notifications')) });

export function useNotificationSettings() {
  return useQuery(notificationQuery());
}

export function useUpdateNotifications(options?: MutationOptions<NotificationSettings, NotificationChange>) {
  return useInvalidatingMutation(
    (body: NotificationChange) => call(api.PUT('/users/me/notifications', { body })),
    (queryClient, data) => {
      queryClient.setQueryData(notificationKeys.all(), data);
      return Promise.resolve();
    },
    options,
  );
}
