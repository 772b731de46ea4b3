import { rotatedWebhookSecret, type RotatedWebhookSecret } from '@engram/shared';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

/**
 * POST /api/webhooks/{id}/rotate-secret → the new secret (shown once) and
 * until when the previous one signs beside it (a second v1 in the signature).
 */
export function rotateWebhookSecret(id: string): Promise<RotatedWebhookSecret> {
  return apiRequest(`/api/webhooks/${encodeURIComponent(id)}/rotate-secret`, {
    method: 'POST',
    schema: rotatedWebhookSecret,
  });
}

export function useRotateWebhookSecret() {
  return useMutation({ mutationFn: rotateWebhookSecret });
}
