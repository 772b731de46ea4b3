import { okResponse } from '@engram/shared';
import { apiRequest } from '../api-client';

/** POST /auth/logout: revokes the session server-side. */
export async function logout(token: string): Promise<void> {
  await apiRequest('/auth/logout', {
    method: 'POST',
    token,
    schema: okResponse,
    // The session may already be revoked; signing out must still finish quietly.
    signOutOnUnauthorized: false,
  });
}
