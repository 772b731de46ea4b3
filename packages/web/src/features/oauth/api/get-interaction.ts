import { oauthInteraction, type OAuthInteraction } from '@engram/shared';
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

export function interactionKey(uid: string) {
  return ['oauth-interaction', uid] as const;
}

/**
 * GET /api/oauth/interactions/{uid}: what a pending authorization request
 * asks for; 404 when it is unknown or expired.
 */
export function getInteraction(uid: string): Promise<OAuthInteraction> {
  return apiRequest(`/api/oauth/interactions/${encodeURIComponent(uid)}`, {
    schema: oauthInteraction,
  });
}

export function useInteraction(uid: string) {
  return useQuery({
    queryKey: interactionKey(uid),
    queryFn: () => getInteraction(uid),
    // A request is answered once: loading it again could only find it gone.
    staleTime: Infinity,
  });
}
