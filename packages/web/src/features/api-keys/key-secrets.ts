import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';

/**
 * Full API keys seen in this session, by key id.
 *
 * The server sends a key in full only in the answer to create or roll, and
 * the screen may reveal and copy only those keys (docs/product.md, The signed-in app). They are kept in
 * memory only, in the query cache under a key of their own: never in
 * localStorage or sessionStorage, so a reload forgets them, and signing out
 * (or any 401) clears the whole query cache and them with it.
 */
type KeySecrets = Readonly<Record<string, string>>;

const keySecretsKey = ['api-key-secrets'] as const;
const NONE: KeySecrets = {};

/** The full keys known to this session (empty after a reload or sign-out). */
export function useKeySecrets(): KeySecrets {
  const { data } = useQuery({
    queryKey: keySecretsKey,
    // Never fetched: the cache entry is written by create and roll only.
    queryFn: () => NONE,
    initialData: NONE,
    enabled: false,
    staleTime: Infinity,
    gcTime: Infinity,
  });
  return data;
}

export function useRememberKeySecret() {
  const queryClient = useQueryClient();
  return useCallback(
    (id: string, apiKey: string) =>
      queryClient.setQueryData<KeySecrets>(keySecretsKey, (secrets = NONE) => ({
        ...secrets,
        [id]: apiKey,
      })),
    [queryClient],
  );
}

export function useForgetKeySecret() {
  const queryClient = useQueryClient();
  return useCallback(
    (id: string) =>
      queryClient.setQueryData<KeySecrets>(keySecretsKey, (secrets = NONE) =>
        Object.fromEntries(Object.entries(secrets).filter(([keyId]) => keyId !== id)),
      ),
    [queryClient],
  );
}
