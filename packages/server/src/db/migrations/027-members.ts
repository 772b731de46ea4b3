/**
 * Teams (features/members, decision 028).
 *
 * - `account_members.role` takes the four roles; `last_active_at` is a
 *   member's latest request in the account, to the minute (counted in memory
 *   and flushed, never a write per request).
 * - `account_invitations`: pending invitations, one per email and account
 *   (inviting again replaces it). The link's token is stored only as its
 *   hash; accepting or revoking deletes the row, so a token works once.
 */
export const sql = /* sql */ `
  alter table account_members drop constraint if exists account_members_role_check;
  alter table account_members add constraint account_members_role_check
    check (role in ('owner', 'admin', 'member', 'viewer'));
  alter table account_members add column last_active_at timestamptz;

  create table account_invitations (
    account_id uuid not null references accounts (id) on delete cascade,
    id uuid not null default gen_random_uuid(),
    email text not null,
    role text not null check (role in ('admin', 'member', 'viewer')),
    token_hash text not null unique,
    invited_by uuid references users (id) on delete set null,
    expires_at timestamptz not null,
    created_at timestamptz not null default now(),
    primary key (account_id, id),
    unique (account_id, email)
  );
`;
