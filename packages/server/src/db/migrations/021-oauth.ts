/**
 * OAuth 2.1 for /mcp (features/oauth, decision 022). `oauth_models` holds
 * every record of the authorization server (clients registered dynamically,
 * authorization requests, codes, access and refresh tokens, grants,
 * sessions) as the library writes it: a JSON payload by kind and id, with
 * the grant, interaction uid and expiry it is looked up or ended by. It
 * belongs to the instance, not to an account: a token is found by its id
 * alone. `oauth_grants` names the Engram account and user of each grant, so
 * Settings lists a person's connected apps (the client's name, logo and site
 * as its metadata said at consent) and revoking ends them at once.
 */
export const sql = /* sql */ `
  create table oauth_models (
    kind text not null,
    id text not null,
    payload jsonb not null,
    grant_id text,
    uid text,
    expires_at timestamptz,
    consumed_at timestamptz,
    primary key (kind, id)
  );
  create index oauth_models_by_grant on oauth_models (grant_id) where grant_id is not null;
  create index oauth_models_by_uid on oauth_models (uid) where uid is not null;
  create index oauth_models_by_expiry on oauth_models (expires_at) where expires_at is not null;

  create table oauth_grants (
    account_id uuid not null references accounts (id) on delete cascade,
    id text not null,
    user_id uuid not null references users (id) on delete cascade,
    client_id text not null,
    client_name text,
    client_logo_uri text,
    client_uri text,
    created_at timestamptz not null default now(),
    last_used_at timestamptz,
    primary key (account_id, id)
  );
  create unique index oauth_grants_by_id on oauth_grants (id);
  create index oauth_grants_by_user on oauth_grants (account_id, user_id, created_at desc);
  create index oauth_grants_of_user on oauth_grants (user_id);
`;
