import { subscriptionChange, type Subscription } from '@engram/shared';
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { liveQueryKeys } from '@/lib/realtime';
import { billingKeys } from '@/lib/api/keys';

/**
 * POST `path` with the body `bodyOf` makes → the subscription as it now
 * stands. It is stored at once; `reload` and the dashboard's usage panel
 * reload.
 */
function useSubscriptionChange<Input>(
  path: string,
  bodyOf: (input: Input) => unknown,
  reload: QueryKey,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: Input): Promise<Subscription> => {
      const answer = await apiRequest(path, {
        method: 'POST',
        body: bodyOf(input),
        schema: subscriptionChange,
      });
      return answer.subscription;
    },
    onSuccess: async (subscription) => {
      queryClient.setQueryData(billingKeys.subscription, subscription);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: reload }),
        queryClient.invalidateQueries({ queryKey: liveQueryKeys.analytics }),
      ]);
    },
  });
}

export interface ChangePlanInput {
  planId: string;
  /** null moves to the free plan (docs/product.md, States). */
  priceId: string | null;
}

/** {planId, priceId}. Limits changed: all of billing reloads. */
export const useChangePlan = () =>
  useSubscriptionChange(
    '/api/billing/change-plan',
    (input: ChangePlanInput) => input,
    billingKeys.all,
  );

/** {immediate: false}: ends at the period end (docs/product.md, States). */
export const useCancelSubscription = () =>
  useSubscriptionChange<void>(
    '/api/billing/cancel-subscription',
    () => ({ immediate: false }),
    billingKeys.subscription,
  );

/** Reverses a cancellation (docs/product.md, States). */
export const useReactivateSubscription = () =>
  useSubscriptionChange<void>(
    '/api/billing/reactivate-subscription',
    () => ({}),
    billingKeys.subscription,
  );
