import { setupIntent, type SetupIntent } from '@engram/shared';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

/**
 * POST /api/billing/setup-intent {} → the clientSecret the card form confirms
 * with the payment provider, and its publishable key (docs/product.md, Calls). A server
 * without a provider answers 409 'Payments are not configured on this server'.
 */
export function createSetupIntent(): Promise<SetupIntent> {
  return apiRequest('/api/billing/setup-intent', { method: 'POST', body: {}, schema: setupIntent });
}

export function useCreateSetupIntent() {
  return useMutation({ mutationFn: createSetupIntent });
}
