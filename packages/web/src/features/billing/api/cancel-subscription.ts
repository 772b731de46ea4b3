import { subscriptionChange, type Subscription } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { billingKeys } from '@/lib/api/keys';

/** POST /api/billing/cancel-subscription {immediate: false}: ends at the period end (docs/product.md, States). */
export async function cancelSubscription(): Promise<Subscription> {
  const answer = await apiRequest('/api/billing/cancel-subscription', {
    method: 'POST',
    body: { immediate: false },
    schema: subscriptionChange,
  });
  return answer.subscription;
}

export function useCancelSubscription() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: cancelSubscription,
    onSuccess: async (subscription) => {
      queryClient.setQueryData(billingKeys.subscription, subscription);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: billingKeys.subscription }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.analytics }),
      ]);
    },
  });
}
