import { oauthGrantList, type OAuthGrant } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

export const grantsKey = ['oauth-grants'] as const;

/** GET /api/oauth/grants → the apps connected to this account over MCP (docs/product.md, Settings). */
export async function listGrants(): Promise<OAuthGrant[]> {
  const { grants } = await apiRequest('/api/oauth/grants', { schema: oauthGrantList });
  return grants;
}

export function useGrants() {
  return useQuery(queryOptions({ queryKey: grantsKey, queryFn: listGrants }));
}
