import { paymentMethodList, type PaymentMethod } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { billingKeys } from '@/lib/api/keys';

/** GET /api/billing/payment-methods → paymentMethods (docs/product.md, Calls), the default first. */
export async function listPaymentMethods(): Promise<PaymentMethod[]> {
  return (await apiRequest('/api/billing/payment-methods', { schema: paymentMethodList }))
    .paymentMethods;
}

export function paymentMethodsQueryOptions() {
  return queryOptions({ queryKey: billingKeys.paymentMethods, queryFn: listPaymentMethods });
}

export function usePaymentMethods() {
  return useQuery(paymentMethodsQueryOptions());
}
