import { type QueryClient, useMutation, useQueryClient } from '@tanstack/react-query';

/** What a page adds to a resource's mutation: its own reaction (close a dialog, clear a field, navigate). */
export interface MutationOptions<D, V> {
  onSuccess?: (data: D, variables: V) => unknown;
}

/**
 * A mutation that refreshes what it changed: the page's own `onSuccess` first (its
 * dialog closes at once), then the queries `invalidate` names are fetched again.
 */
export function useInvalidatingMutation<D, V = void>(
  mutationFn: (variables: V) => Promise<D>,
  invalidate: (queryClient: QueryClient, data: D, variables: V) => Promise<unknown>,
  options?: MutationOptions<D, V>,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: async (data, variables) => {
      await options?.onSuccess?.(data, variables);
      await invalidate(queryClient, data, variables);
    },
  });
}
