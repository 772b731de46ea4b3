import { createdApiKey, type CreatedApiKey } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { useRememberKeySecret } from '../key-secrets';
import { apiKeysKey } from './list-api-keys';

export interface NewApiKey {
  name: string;
  /** What it may touch (key-scope.ts); [] is full access, the default. */
  permissions: string[];
}

/**
 * POST /api/keys {name, permissions} → 201 with the full key, the only time
 * it is sent (docs/product.md, Calls: full access is an empty permissions list).
 * Past the plan's key limit the server answers 402 with a message naming it.
 */
export function createApiKey({ name, permissions }: NewApiKey): Promise<CreatedApiKey> {
  return apiRequest('/api/keys', {
    method: 'POST',
    body: { name: name.trim(), permissions },
    schema: createdApiKey,
  });
}

export function useCreateApiKey() {
  const queryClient = useQueryClient();
  const rememberSecret = useRememberKeySecret();
  return useMutation({
    mutationFn: createApiKey,
    onSuccess: async (created) => {
      rememberSecret(created.id, created.apiKey);
      await queryClient.invalidateQueries({ queryKey: apiKeysKey });
    },
  });
}
