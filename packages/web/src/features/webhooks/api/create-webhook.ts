import { createdWebhook, type CreatedWebhook, type CreateWebhookInput } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { webhookKeys } from '@/lib/api/keys';

/**
 * POST /api/webhooks {url, events, description?, space?} → 201 with the
 * signing secret, the only time it is sent. 402 when the plan has no room
 * (none on Free), 400 naming the field for a refused URL or events.
 */
export function createWebhook(input: CreateWebhookInput): Promise<CreatedWebhook> {
  return apiRequest('/api/webhooks', { method: 'POST', body: input, schema: createdWebhook });
}

export function useCreateWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createWebhook,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookKeys.list }),
  });
}
