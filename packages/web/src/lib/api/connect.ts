import { connectInfo, type ConnectInfo, type LocalInstall } from '@engram/shared';
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

export const connectInfoKey = ['connect'] as const;

/**
 * GET /api/connect: the server's install and data folders, which it gives
 * only to a person on its own machine without PUBLIC_URL (`local`, else null).
 */
export function getConnectInfo(): Promise<ConnectInfo> {
  // About the server, not an account: no X-Engram-Account.
  return apiRequest('/api/connect', { schema: connectInfo, account: null });
}

/**
 * Where Engram is on this machine, for the stdio snippet; null while loading,
 * when the server does not say (placeholders then), or when the call fails.
 */
export function useLocalInstall(): LocalInstall | null {
  const { data } = useQuery({
    queryKey: connectInfoKey,
    queryFn: getConnectInfo,
    // The folders do not change while the server runs.
    staleTime: Infinity,
    retry: false,
  });
  return data?.local ?? null;
}
