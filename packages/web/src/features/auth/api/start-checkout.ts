import { useMutation } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '@/lib/api-client';

export interface CheckoutInput {
  priceId: string;
  successUrl: string;
  cancelUrl: string;
}

const checkoutSession = z.object({ url: z.string().min(1) });

/** POST /api/billing/checkout → {url} of the hosted checkout page (spec §7). */
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
