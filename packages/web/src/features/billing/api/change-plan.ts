import { subscriptionChange, type Subscription } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { billingKeys } from '@/lib/api/keys';

export interface ChangePlanInput {
  planId: string;
  /** null moves to the free plan (docs/product.md, States). */
  priceId: string | null;
}

/** POST /api/billing/change-plan {planId, priceId} → the subscription as it now stands. */
export async function changePlan(input: ChangePlanInput): Promise<Subscription> {
  const answer = await apiRequest('/api/billing/change-plan', {
    method: 'POST',
    body: input,
    schema: subscriptionChange,
  });
  return answer.subscription;
}

/** Limits changed: the billing screen and the dashboard's usage panel both reload. */
export function useChangePlan() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: changePlan,
    onSuccess: async (subscription) => {
      queryClient.setQueryData(billingKeys.subscription, subscription);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: billingKeys.all }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.analytics }),
      ]);
    },
  });
}
