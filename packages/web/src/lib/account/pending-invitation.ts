/**
 * An invitation link opened before signing in (issue 40): its token is kept
 * for this tab while the person signs in or signs up, so the invitation page
 * can be shown again afterwards even if the address lost its `#token=`.
 * Cleared once the invitation is accepted, found invalid or set aside.
 */
const PENDING_KEY = 'engram_pending_invitation';

/** Where an invitation link leads; the token rides in the fragment, never sent to the server. */
export const INVITATION_PATH = '/invitations/accept';

export function readPendingInvitation(): string | null {
  try {
    return sessionStorage.getItem(PENDING_KEY) || null;
  } catch {
    return null;
  }
}

export function storePendingInvitation(token: string): void {
  try {
    sessionStorage.setItem(PENDING_KEY, token);
  } catch {
    // Without storage the link itself still works when opened again.
  }
}

export function clearPendingInvitation(): void {
  try {
    sessionStorage.removeItem(PENDING_KEY);
  } catch {
    // Nothing was kept.
  }
}

/** The token in an invitation link's fragment (`#token=…`), or null. */
export function tokenFromHash(hash: string): string | null {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const token = params.get('token')?.trim();
  return token ? token : null;
}

/** The invitation page's address for a token (the token in the fragment). */
export function invitationPath(token: string): string {
  return `${INVITATION_PATH}#${new URLSearchParams({ token }).toString()}`;
}
