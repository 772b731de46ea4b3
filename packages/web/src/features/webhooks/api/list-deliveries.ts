import { webhookDeliveryList, type WebhookDeliveryList } from '@engram/shared';
import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { webhookKeys } from '@/lib/api/keys';

/** Deliveries are read this many at a time, newest first; 'Load more' reads the next page. */
export const DELIVERY_PAGE_SIZE = 10;

/** While a delivery waits for a retry, the log is read again this often (only while it is open). */
const PENDING_REFRESH_MS = 5_000;

/** GET /api/webhooks/{id}/deliveries?limit=&cursor= → a page of the log, newest first. */
export function listDeliveries(id: string, cursor: string | null): Promise<WebhookDeliveryList> {
  const params = new URLSearchParams({ limit: String(DELIVERY_PAGE_SIZE) });
  if (cursor) params.set('cursor', cursor);
  return apiRequest(`/api/webhooks/${encodeURIComponent(id)}/deliveries?${params.toString()}`, {
    schema: webhookDeliveryList,
  });
}

export function deliveriesOptions(id: string) {
  return infiniteQueryOptions({
    queryKey: webhookKeys.deliveries(id),
    queryFn: ({ pageParam }) => listDeliveries(id, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
    // The server sends on its own: an open log follows its pending and retrying rows until they settle.
    refetchInterval: (query) =>
      query.state.data?.pages.some((page) =>
        page.deliveries.some((d) => d.status === 'pending' || d.status === 'retrying'),
      )
        ? PENDING_REFRESH_MS
        : false,
  });
}

export function useDeliveries(id: string) {
  return useInfiniteQuery(deliveriesOptions(id));
}
