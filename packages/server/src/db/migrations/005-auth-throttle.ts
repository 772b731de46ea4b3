/**
 * Failed attempts per subject, for throttles that must hold across nodes:
 * sign-in failures per email, wrong current passwords per user, sign-ups
 * that hit an existing email per client address (docs/security.md).
 * Global like the identity tables (decision 002): a subject is not an account's row.
 */
export const sql = /* sql */ `
  create table auth_throttle (
    scope text not null check (scope in ('login', 'password', 'register')),
    subject text not null,
    failures integer not null,
    window_start timestamptz not null,
    locked_until timestamptz,
    primary key (scope, subject)
  );
`;
