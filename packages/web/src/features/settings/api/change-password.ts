import { okResponse, type ChangePasswordInput } from '@engram/shared';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

/**
 * POST /auth/password. A wrong current password is a 400 whose details name
 * the `currentPassword` field.
 */
export async function changePassword(input: ChangePasswordInput): Promise<void> {
  await apiRequest('/auth/password', { method: 'POST', body: input, schema: okResponse });
}

export function useChangePassword() {
  return useMutation({ mutationFn: changePassword });
}
