/**
 * The account the signed-in app acts in (issue 40, Teams): remembered per
 * tab, named by the API client in every request (X-Engram-Account) and by
 * the realtime client in its address; switching empties the query cache so
 * nothing read in one account shows in another. The header's switcher is
 * `app/shell/account-switcher.tsx`.
 */
export { forgetAccountId, readAccountId, storeAccountId } from './account-store';
export {
  clearPendingInvitation,
  INVITATION_PATH,
  invitationPath,
  readPendingInvitation,
  storePendingInvitation,
  tokenFromHash,
} from './pending-invitation';
export { useAccount, useAccountId, type AccountValue } from './use-account';
export {
  can,
  VIEWER_NO_KEYS,
  VIEWER_READ_ONLY,
  WEBHOOKS_ADMINS_ONLY,
  type RoleAction,
} from './role-rules';
export { useCan, useRole } from './use-role';
