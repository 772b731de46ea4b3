import { webhookDelivery, type WebhookDelivery } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { webhookKeys } from '@/lib/api/keys';
import { refreshDeliveries } from './refresh-deliveries';

/**
 * POST /api/webhooks/{id}/deliveries/{deliveryId}/redeliver → a new delivery
 * of the same event, sent now. 409 once the event is past the change log's retention.
 */
export function redeliver(webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
  return apiRequest(
    `/api/webhooks/${encodeURIComponent(webhookId)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`,
    { method: 'POST', schema: webhookDelivery },
  );
}

export function useRedeliver(webhookId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: string) => redeliver(webhookId, deliveryId),
    onSuccess: () =>
      Promise.all([
        refreshDeliveries(queryClient, webhookId),
        queryClient.invalidateQueries({ queryKey: webhookKeys.list }),
      ]),
  });
}
