import { okResponse } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { CURRENT_USER_KEY } from '@/lib/session';
import { memberKeys } from '@/lib/api/keys';

/** POST /api/members/transfer-ownership {userId} → {success}: they become owner, the caller an admin. */
export async function transferOwnership(userId: string): Promise<void> {
  await apiRequest('/api/members/transfer-ownership', {
    method: 'POST',
    body: { userId },
    schema: okResponse,
  });
}

export function useTransferOwnership() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: transferOwnership,
    // The caller's own role changed too: the session reads it again (billing, this screen).
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: memberKeys.list }),
        queryClient.invalidateQueries({ queryKey: CURRENT_USER_KEY }),
      ]),
  });
}
