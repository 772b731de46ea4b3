import { okResponse } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { grantsKey } from './list-grants';

/** DELETE /api/oauth/grants/{id}: the app's tokens are refused from that moment on. */
export async function revokeGrant(id: string): Promise<void> {
  await apiRequest(`/api/oauth/grants/${encodeURIComponent(id)}`, {
    method: 'DELETE',
    schema: okResponse,
  });
}

export function useRevokeGrant() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeGrant,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: grantsKey });
    },
  });
}
