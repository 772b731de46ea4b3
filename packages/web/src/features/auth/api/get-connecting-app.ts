import { oauthInteractionApp, type OAuthInteractionApp } from '@engram/shared';
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

/**
 * GET /api/oauth/interactions/{uid}/app: the application a pending
 * authorization is for (no sign-in needed); 404 when unknown or expired.
 */
export function getConnectingApp(uid: string): Promise<OAuthInteractionApp> {
  return apiRequest(`/api/oauth/interactions/${encodeURIComponent(uid)}/app`, {
    schema: oauthInteractionApp,
  });
}

/** The app asking to connect, when sign-in was reached from its consent screen (`uid`). */
export function useConnectingApp(uid: string | undefined) {
  return useQuery({
    queryKey: ['oauth-connecting-app', uid] as const,
    queryFn: () => getConnectingApp(uid!),
    enabled: uid !== undefined,
    retry: false,
    staleTime: Infinity,
  });
}
