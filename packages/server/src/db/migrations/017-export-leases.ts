/**
 * One export per account at a time, on every node (issue 31): an export holds
 * its account's lease, renews it while it streams and deletes it when it
 * ends. A node that dies mid-export leaves a lease that simply expires.
 */
export const sql = /* sql */ `
  create table export_leases (
    account_id uuid primary key references accounts (id) on delete cascade,
    holder uuid not null,
    expires_at timestamptz not null
  );
`;
