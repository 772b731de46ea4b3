import { okResponse } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { memberKeys } from '@/lib/api/keys';

/** DELETE /api/members/invitations/{id} → {success}: the link stops working at once. */
export async function revokeInvitation(id: string): Promise<void> {
  await apiRequest(`/api/members/invitations/${encodeURIComponent(id)}`, {
    method: 'DELETE',
    schema: okResponse,
  });
}

export function useRevokeInvitation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeInvitation,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: memberKeys.list }),
  });
}
