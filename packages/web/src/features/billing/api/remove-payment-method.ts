import { okResponse } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { billingKeys } from '@/lib/api/keys';

/** DELETE /api/billing/payment-methods/{id} (docs/product.md, Calls). */
export async function removePaymentMethod(id: string): Promise<void> {
  await apiRequest(`/api/billing/payment-methods/${encodeURIComponent(id)}`, {
    method: 'DELETE',
    schema: okResponse,
  });
}

export function useRemovePaymentMethod() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: removePaymentMethod,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: billingKeys.paymentMethods }),
  });
}
