import { checkoutSession } from '@engram/shared';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

export interface CheckoutInput {
  priceId: string;
  successUrl: string;
  cancelUrl: string;
}

/**
 * POST /api/billing/checkout {priceId, successUrl, cancelUrl} → the hosted
 * checkout page's url. Sign-up (a paid plan chosen on Pricing) and Billing
 * (a change of plan) both start one.
 */
export async function startCheckout(input: CheckoutInput): Promise<string> {
  const session = await apiRequest('/api/billing/checkout', {
    method: 'POST',
    body: input,
    schema: checkoutSession,
  });
  return session.url;
}

export function useStartCheckout() {
  return useMutation({ mutationFn: startCheckout });
}
