/**
 * Billing (issue 14): the account's subscription mirrors the payment
 * provider's, and its payment methods and invoices are kept beside it.
 *
 * - `subscriptions` gains the provider's ids, the provider's timestamp of the
 *   last state applied (`provider_synced_at`, epoch seconds: an older webhook
 *   delivered late changes nothing) and a grace plan: after a downgrade the
 *   higher plan's limits stay in force until `grace_until`, the end of the
 *   period already paid for (pricing FAQ: downgrades at the next billing cycle).
 * - `payment_methods` and `invoices` mirror the provider's (tenant tables,
 *   keyed by account first like every other).
 * - `billing_events`: ids of the provider events already applied, so a
 *   replayed delivery is recognised and changes nothing. Events arrive before
 *   their account is known, so this small table is keyed by the event id.
 */
export const sql = /* sql */ `
  alter table subscriptions
    add column provider text not null default 'none',
    add column provider_customer_id text,
    add column provider_subscription_id text,
    add column provider_synced_at bigint not null default 0,
    add column grace_plan_id text,
    add column grace_until timestamptz;
  create index subscriptions_by_customer on subscriptions (provider_customer_id)
    where provider_customer_id is not null;

  create table payment_methods (
    account_id uuid not null references accounts (id) on delete cascade,
    id text not null,
    brand text not null,
    last4 text not null,
    exp_month integer not null,
    exp_year integer not null,
    is_default boolean not null default false,
    created_at timestamptz not null default now(),
    primary key (account_id, id)
  );
  create index payment_methods_by_id on payment_methods (id);

  create table invoices (
    account_id uuid not null references accounts (id) on delete cascade,
    id text not null,
    number text,
    created timestamptz not null,
    amount integer not null,
    currency text not null default 'usd',
    status text not null,
    hosted_invoice_url text,
    invoice_pdf text,
    provider_synced_at bigint not null default 0,
    primary key (account_id, id)
  );
  create index invoices_by_created on invoices (account_id, created desc);

  create table billing_events (
    id text primary key,
    type text not null,
    account_id uuid,
    received_at timestamptz not null default now()
  );
  create index billing_events_by_time on billing_events (received_at);
`;
