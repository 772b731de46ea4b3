import { user, type UpdateProfileInput, type User } from '@engram/shared';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

/** PUT /auth/me {firstName, lastName} → the updated user. */
export function updateProfile(input: UpdateProfileInput): Promise<User> {
  return apiRequest('/auth/me', { method: 'PUT', body: input, schema: user });
}

export function useUpdateProfile() {
  return useMutation({ mutationFn: updateProfile });
}
