import { okResponse, type DeleteAccountInput } from '@engram/shared';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

/**
 * DELETE /auth/me with the password. A wrong password is a 403 whose details
 * name `password` (not a 401, so the app does not sign out over a typo).
 */
export async function deleteAccount(input: DeleteAccountInput): Promise<void> {
  await apiRequest('/auth/me', { method: 'DELETE', body: input, schema: okResponse });
}

export function useDeleteAccount() {
  return useMutation({ mutationFn: deleteAccount });
}
