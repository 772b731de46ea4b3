import { okResponse } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { billingKeys } from '@/lib/api/keys';

/** POST /api/billing/payment-methods/{id}/default {} (docs/product.md, Calls). */
export async function setDefaultPaymentMethod(id: string): Promise<void> {
  await apiRequest(`/api/billing/payment-methods/${encodeURIComponent(id)}/default`, {
    method: 'POST',
    body: {},
    schema: okResponse,
  });
}

export function useSetDefaultPaymentMethod() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: setDefaultPaymentMethod,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: billingKeys.paymentMethods }),
  });
}
