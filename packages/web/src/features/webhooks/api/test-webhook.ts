import { webhookDelivery, type WebhookDelivery } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { webhookKeys } from '@/lib/api/keys';
import { refreshDeliveries } from './refresh-deliveries';

/** POST /api/webhooks/{id}/test → the "ping" delivery, sent now (enabled or not), never retried. */
export function testWebhook(id: string): Promise<WebhookDelivery> {
  return apiRequest(`/api/webhooks/${encodeURIComponent(id)}/test`, {
    method: 'POST',
    schema: webhookDelivery,
  });
}

export function useTestWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: testWebhook,
    // The send is a new row of the log, and a success may end a run of failures.
    onSuccess: (_delivery, id) =>
      Promise.all([
        refreshDeliveries(queryClient, id),
        queryClient.invalidateQueries({ queryKey: webhookKeys.list }),
      ]),
  });
}
