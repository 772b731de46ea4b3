import type { QueryClient } from '@tanstack/react-query';

/**
 * Query keys of the Webhooks screen. Endpoints and their deliveries change by
 * this screen's own acts and by the server's sends (never by a graph event the
 * realtime feed names), so they sit under `['webhooks']`, apart from the live
 * graph keys.
 */
export const webhookKeys = {
  all: ['webhooks'] as const,
  list: ['webhooks', 'list'] as const,
  deliveries: (webhookId: string) => ['webhooks', 'deliveries', webhookId] as const,
};

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
