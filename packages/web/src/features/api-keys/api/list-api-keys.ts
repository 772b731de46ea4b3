import { apiKeyList, type ApiKey } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

/** Everything the API keys screen caches about the list starts with this key. */
export const apiKeysKey = ['api-keys'] as const;

/** GET /api/keys → the account's keys, newest first, each with a masked preview only. */
export async function listApiKeys(): Promise<ApiKey[]> {
  const { apiKeys } = await apiRequest('/api/keys', { schema: apiKeyList });
  return apiKeys;
}

export function apiKeysQueryOptions() {
  return queryOptions({ queryKey: apiKeysKey, queryFn: listApiKeys });
}

/** `enabled: false` for a role that may not manage keys (a viewer: the server answers 403). */
export function useApiKeys({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ ...apiKeysQueryOptions(), enabled });
}
