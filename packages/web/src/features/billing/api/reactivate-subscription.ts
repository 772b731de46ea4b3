import { subscriptionChange, type Subscription } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { billingKeys } from '@/lib/api/keys';

/** POST /api/billing/reactivate-subscription {}: reverses a cancellation (docs/product.md, States). */
export async function reactivateSubscription(): Promise<Subscription> {
  const answer = await apiRequest('/api/billing/reactivate-subscription', {
    method: 'POST',
    body: {},
    schema: subscriptionChange,
  });
  return answer.subscription;
}

export function useReactivateSubscription() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: reactivateSubscription,
    onSuccess: async (subscription) => {
      queryClient.setQueryData(billingKeys.subscription, subscription);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: billingKeys.subscription }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.analytics }),
      ]);
    },
  });
}
