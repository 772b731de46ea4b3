import { webhook, type UpdateWebhookInput, type Webhook } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { webhookKeys } from '@/lib/api/keys';

/**
 * PATCH /api/webhooks/{id} → the endpoint as it now is. Enabling clears
 * `disabledReason` and `failingSince`; it resumes after the last event sent.
 */
export function updateWebhook(id: string, input: UpdateWebhookInput): Promise<Webhook> {
  return apiRequest(`/api/webhooks/${encodeURIComponent(id)}`, {
    method: 'PATCH',
    body: input,
    schema: webhook,
  });
}

export function useUpdateWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id: string; input: UpdateWebhookInput }) =>
      updateWebhook(id, input),
    onSuccess: async (updated) => {
      // The answer is the whole endpoint: shown at once, then read again with the rest.
      queryClient.setQueryData<Webhook[]>(webhookKeys.list, (list) =>
        list?.map((item) => (item.id === updated.id ? updated : item)),
      );
      await queryClient.invalidateQueries({ queryKey: webhookKeys.list });
    },
  });
}
