import { rolledApiKey, type RolledApiKey } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { useRememberKeySecret } from '../key-secrets';
import { apiKeysKey } from './list-api-keys';

/**
 * POST /api/keys/{id}/roll → the successor (with its full key, shown once)
 * and the old key's new expiry: it keeps working for 2 weeks (docs/product.md, States).
 * Rolling a key that was already rolled is a 409.
 */
export function rollApiKey(id: string): Promise<RolledApiKey> {
  return apiRequest(`/api/keys/${encodeURIComponent(id)}/roll`, {
    method: 'POST',
    schema: rolledApiKey,
  });
}

export function useRollApiKey() {
  const queryClient = useQueryClient();
  const rememberSecret = useRememberKeySecret();
  return useMutation({
    mutationFn: rollApiKey,
    onSuccess: async ({ newKey }) => {
      rememberSecret(newKey.id, newKey.apiKey);
      await queryClient.invalidateQueries({ queryKey: apiKeysKey });
    },
  });
}
