import type { UseMutationResult } from '@tanstack/react-query';
import { useState } from 'react';

/**
 * A checkbox whose click saves at once (a mutation that refetches what it changed): it
 * shows the value clicked from the click's own render until the mutation has settled.
 * React Query tells of a mutation's pending state a task after `mutate`, and a controlled
 * checkbox springs back to the saved value in between (and, without this, until the
 * refetch when nothing else holds the new value). On failure it shows the saved value again.
 */
export function useSavingSwitch<D, E>(saved: boolean, mutation: UseMutationResult<D, E, boolean>): { checked: boolean; toggle: (value: boolean) => void } {
  const [wanted, setWanted] = useState<boolean | null>(null);
  return {
    checked: wanted ?? saved,
    toggle: (value: boolean) => {
      setWanted(value);
      mutation.mutate(value, { onSettled: () => setWanted(null) });
    },
  };
}
