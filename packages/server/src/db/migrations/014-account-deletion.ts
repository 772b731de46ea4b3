/**
 * Account deletion (DELETE /auth/me). Deleting marks the account in one
 * short transaction — `deleted_at` set, its people's sessions, keys and
 * memberships and the user removed — so it is unreachable at once and the
 * email is free; its rows are then removed in bounded batches in the
 * background (features/accounts), and a purge cut short by a crash is taken
 * up again at the next start. The partial index finds the marked accounts.
 */
export const sql = /* sql */ `
  alter table accounts add column deleted_at timestamptz;
  create index accounts_being_deleted on accounts (deleted_at) where deleted_at is not null;
`;
