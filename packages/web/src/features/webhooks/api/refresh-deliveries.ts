import type { QueryClient } from '@tanstack/react-query';
import { webhookKeys } from '@/lib/api/keys';

/**
 * Reads an endpoint's log again after a send. A first read still under way
 * (the log opened with the send) may have been answered before the send was
 * recorded, and invalidating would only wait for it: it is dropped first.
 */
export async function refreshDeliveries(queryClient: QueryClient, webhookId: string) {
  const queryKey = webhookKeys.deliveries(webhookId);
  await queryClient.cancelQueries({ queryKey });
  await queryClient.invalidateQueries({ queryKey });
}
