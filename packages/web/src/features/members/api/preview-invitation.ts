import { invitationPreview, type InvitationPreview } from '@engram/shared';
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

/**
 * POST /api/invitations/preview {token} → what the link offers (no session
 * needed). 404 when the token is unknown, used, revoked or expired. It names
 * no account: the invitee is not in that account yet.
 */
export function previewInvitation(token: string): Promise<InvitationPreview> {
  return apiRequest('/api/invitations/preview', {
    method: 'POST',
    body: { token },
    schema: invitationPreview,
    account: null,
    signOutOnUnauthorized: false,
  });
}

export function useInvitationPreview(token: string | null) {
  return useQuery({
    queryKey: ['invitations', 'preview', token],
    queryFn: () => previewInvitation(token ?? ''),
    enabled: token !== null,
    // A read of one link, not a list that changes under the person: once is enough.
    staleTime: Infinity,
  });
}
