import { authResponse, type AuthResponse, type RegisterInput } from '@engram/shared';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

/** POST /auth/register → 201 {token, user}; 409 when the email is taken. */
export function register(input: RegisterInput): Promise<AuthResponse> {
  return apiRequest('/auth/register', { method: 'POST', body: input, schema: authResponse });
}

export function useRegister() {
  return useMutation({ mutationFn: register });
}
