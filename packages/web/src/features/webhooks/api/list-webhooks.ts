import { webhookList, type Webhook } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { webhookKeys } from '@/lib/api/keys';

/** GET /api/webhooks → the account's endpoints (never their secrets). */
export async function listWebhooks(): Promise<Webhook[]> {
  const { webhooks } = await apiRequest('/api/webhooks', { schema: webhookList });
  return webhooks;
}

export function webhooksQueryOptions() {
  return queryOptions({ queryKey: webhookKeys.list, queryFn: listWebhooks });
}

export function useWebhooks() {
  return useQuery(webhooksQueryOptions());
}
