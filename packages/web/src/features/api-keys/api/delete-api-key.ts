import { okResponse } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { useForgetKeySecret } from '../key-secrets';
import { apiKeysKey } from './list-api-keys';

/** DELETE /api/keys/{id}: the key is refused from that moment on. */
export async function deleteApiKey(id: string): Promise<void> {
  await apiRequest(`/api/keys/${encodeURIComponent(id)}`, {
    method: 'DELETE',
    schema: okResponse,
  });
}

export function useDeleteApiKey() {
  const queryClient = useQueryClient();
  const forgetSecret = useForgetKeySecret();
  return useMutation({
    mutationFn: deleteApiKey,
    onSuccess: async (_result, id) => {
      forgetSecret(id);
      await queryClient.invalidateQueries({ queryKey: apiKeysKey });
    },
  });
}
