/**
 * The optional semantic index (features/embeddings): one vector per
 * observation for the configured EMBEDDINGS_MODEL, kept in plain tables on
 * both databases (neither has pgvector).
 *
 * - `observation_embeddings`: the vectors, keyed like observations, so an
 *   observation has at most one vector whatever the model; vectors of another
 *   model are removed before the account is embedded again with the new one.
 *   A vector is `bytea` of int8 components (the float vector scaled so its
 *   largest component is ±127; cosine similarity ignores the scale): a
 *   quarter of float32's bytes to store, count toward the plan and read, for
 *   a similarity that moves by well under 1%. Read as base64 text: PGlite
 *   returned 300 float32 vectors of 768 dimensions in ~150 ms as bytea, ~20 ms
 *   as base64 and slower still as real[]; 300 int8 vectors are read and
 *   scored in 5-7 ms on both databases. An empty vector marks an
 *   observation the endpoint refused (too long for the model): done, never
 *   retried, never scored.
 *   `entity_id` finds the vectors of an entity the change log names.
 * - No foreign key to observations and no trigger on them: the graph's write
 *   path gains nothing, on or off (a cascading key would queue a check per
 *   deleted observation inside every write transaction, decision 016). The
 *   backlog is found afterwards instead, by the indexer, from what is already
 *   durable: `embedding_state.applied_seq` is how far the account's change
 *   log has been applied; the events after it name the entities whose
 *   observations to compare with their vectors (new ones embedded, vectors of
 *   deleted ones removed). When there is no position to resume from (first
 *   start, a new model, a log compacted past the position), the account's
 *   observations are walked once by id (`walk_cursor`), then its vectors,
 *   from a seq noted at the start (`walk_seq`). Both survive restarts, and a
 *   queue filled inside the write transaction is not needed.
 * - `embedding_state`: per account, the model its vectors belong to, their
 *   count (kept by the trigger below, so the dashboard's backlog, the
 *   account's observation count minus this, counts no rows), the positions
 *   above, a lease so that one node at a time works on an account, and a
 *   failure of the account's own (storage full) with when to try again.
 * - `embedding_models`: per model, its dimensions (a vector of another length
 *   is refused: the endpoint changed under the same name) and the endpoint's
 *   last failure, shown on every account's dashboard.
 * - Vectors count toward `accounts.stored_bytes` (100 bytes of row overhead
 *   plus the vector), kept by statement-level triggers like migration 006's;
 *   they run in the indexer's statements, never in a graph write.
 */
export const sql = /* sql */ `
  create table observation_embeddings (
    account_id uuid not null references accounts (id) on delete cascade,
    observation_id uuid not null,
    entity_id uuid not null,
    model text not null,
    vector bytea not null,
    created_at timestamptz not null default now(),
    primary key (account_id, observation_id)
  );
  create index observation_embeddings_by_entity on observation_embeddings (account_id, entity_id);

  create table embedding_state (
    account_id uuid primary key references accounts (id) on delete cascade,
    model text not null,
    vectors bigint not null default 0,
    applied_seq bigint not null default 0,
    walk_seq bigint,
    walk_phase text check (walk_phase in ('observations', 'vectors')),
    walk_cursor uuid,
    last_error text,
    retry_at timestamptz,
    lease_holder uuid,
    lease_until timestamptz,
    updated_at timestamptz not null default now()
  );

  create table embedding_models (
    model text primary key,
    dimensions integer check (dimensions > 0),
    last_error text,
    failed_at timestamptz,
    created_at timestamptz not null default now()
  );

  create function observation_embeddings_counted() returns trigger language plpgsql as $$
  begin
    if tg_op in ('INSERT', 'UPDATE') then
      update accounts a set stored_bytes = a.stored_bytes + d.bytes
        from (select account_id, sum(100 + octet_length(vector)) as bytes from new_rows group by account_id) d
       where a.id = d.account_id;
      update embedding_state s set vectors = s.vectors + d.n
        from (select account_id, count(*) as n from new_rows group by account_id) d
       where s.account_id = d.account_id;
    end if;
    if tg_op in ('DELETE', 'UPDATE') then
      update accounts a set stored_bytes = a.stored_bytes - d.bytes
        from (select account_id, sum(100 + octet_length(vector)) as bytes from old_rows group by account_id) d
       where a.id = d.account_id;
      update embedding_state s set vectors = s.vectors - d.n
        from (select account_id, count(*) as n from old_rows group by account_id) d
       where s.account_id = d.account_id;
    end if;
    return null;
  end $$;

  create trigger observation_embeddings_insert after insert on observation_embeddings
    referencing new table as new_rows for each statement execute function observation_embeddings_counted();
  create trigger observation_embeddings_update after update on observation_embeddings
    referencing old table as old_rows new table as new_rows for each statement execute function observation_embeddings_counted();
  create trigger observation_embeddings_delete after delete on observation_embeddings
    referencing old table as old_rows for each statement execute function observation_embeddings_counted();
`;
