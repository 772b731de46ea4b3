/**
 * Usage metering: operations per account, day, operation and resource type,
 * aggregated in memory and added here in batches (never a row per call).
 */
export const sql = /* sql */ `
  create table usage_daily (
    account_id uuid not null references accounts (id) on delete cascade,
    day date not null,
    operation_type text not null check (operation_type in ('query', 'create', 'update', 'delete')),
    resource_type text not null,
    count integer not null,
    total_ms double precision not null,
    primary key (account_id, day, operation_type, resource_type)
  );
`;
