import { acceptedInvitation, type AcceptedInvitation } from '@engram/shared';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

/**
 * POST /api/invitations/accept {token}, with the invitee's session → the
 * account joined and the role there. 403 when the signed-in email is not the
 * invitation's; 404 when the link is no longer valid.
 */
export function acceptInvitation(token: string): Promise<AcceptedInvitation> {
  return apiRequest('/api/invitations/accept', {
    method: 'POST',
    body: { token },
    schema: acceptedInvitation,
    account: null,
  });
}

export function useAcceptInvitation() {
  return useMutation({ mutationFn: acceptInvitation });
}
