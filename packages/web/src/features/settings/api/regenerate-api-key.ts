import { personalApiKey } from '@engram/shared';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

/** POST /auth/me/api-key → {apiKey}: a new personal key; the old one is refused at once. */
export async function regenerateApiKey(): Promise<string> {
  const { apiKey } = await apiRequest('/auth/me/api-key', {
    method: 'POST',
    schema: personalApiKey,
  });
  return apiKey;
}

export function useRegenerateApiKey() {
  return useMutation({ mutationFn: regenerateApiKey });
}
