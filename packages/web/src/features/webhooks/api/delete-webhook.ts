import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { webhookKeys } from '@/lib/api/keys';

/** DELETE /api/webhooks/{id} → 204: nothing more is sent to it, and its log goes with it. */
export async function deleteWebhook(id: string): Promise<void> {
  await apiRequest(`/api/webhooks/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

export function useDeleteWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteWebhook,
    onSuccess: async (_result, id) => {
      queryClient.removeQueries({ queryKey: webhookKeys.deliveries(id) });
      await queryClient.invalidateQueries({ queryKey: webhookKeys.list });
    },
  });
}
