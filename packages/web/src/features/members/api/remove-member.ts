import { okResponse } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { memberKeys } from '@/lib/api/keys';

/**
 * DELETE /api/members/{userId} → {success}: they lose access at once (their
 * sessions, keys and grants no longer reach this account). Removing yourself
 * is leaving the account; 409 for the last owner.
 */
export async function removeMember(userId: string): Promise<void> {
  await apiRequest(`/api/members/${encodeURIComponent(userId)}`, {
    method: 'DELETE',
    schema: okResponse,
  });
}

export function useRemoveMember() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: removeMember,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: memberKeys.list }),
  });
}

/** Leaving: the same call for yourself; the caller then switches to their own account. */
export function useLeaveAccount() {
  return useMutation({ mutationFn: removeMember });
}
