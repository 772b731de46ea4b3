import { oauthDecision, type OAuthDecisionInput } from '@engram/shared';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

export type ConsentDecision = OAuthDecisionInput['decision'];

/**
 * POST /api/oauth/interactions/{uid} {decision} → {redirectTo}: the server
 * address that finishes the request and sends the browser back to the app.
 */
export async function decideInteraction(uid: string, decision: ConsentDecision): Promise<string> {
  const body: OAuthDecisionInput = { decision };
  const { redirectTo } = await apiRequest(`/api/oauth/interactions/${encodeURIComponent(uid)}`, {
    method: 'POST',
    body,
    schema: oauthDecision,
  });
  return redirectTo;
}

export function useDecideInteraction(uid: string) {
  return useMutation({
    mutationFn: (decision: ConsentDecision) => decideInteraction(uid, decision),
  });
}
