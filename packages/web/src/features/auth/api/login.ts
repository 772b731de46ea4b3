import { authResponse, type AuthResponse, type LoginInput } from '@engram/shared';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

/** POST /auth/login. Its 401 means "wrong email or password", not "session expired". */
export function login(input: LoginInput): Promise<AuthResponse> {
  return apiRequest('/auth/login', {
    method: 'POST',
    body: input,
    schema: authResponse,
    signOutOnUnauthorized: false,
  });
}

export function useLogin() {
  return useMutation({ mutationFn: login });
}
