/**
 * Finding duplicate entities (issue 59, features/duplicates,
 * docs/consolidation.md). Comparing every pair of a space's entities at
 * request time cannot answer in 300 ms at 100k entities, so the pairs worth
 * proposing are found ahead of time, in the background, and a request reads
 * them in score order.
 *
 * - `duplicate_names`: each entity's names as the finder reads them (one row
 *   per name, so aliases fit in later), with the keys that block names
 *   together (`keys`, computed by the server, features/duplicates/names.ts:
 *   the normalised name, its words in any order, an initial and the last
 *   word, its halves one edit apart, a single word and the names it begins or
 *   ends, acronyms). A key is stored as a 64-bit hash of the space and the key,
 *   so that a lookup reads that one block's entries: a GIN index led by the
 *   space (btree_gin) read all of the space's entries for every key (a step
 *   of 100 entities took 170-320 ms at 2,000 entities), and texts took more
 *   room. No trigram index: PGlite's pg_trgm answers `%` wrongly or never (an
 *   empty answer even to count(*), or a hung worker; `similarity()` itself is
 *   right), so near spellings are blocked by keys instead.
 * - `duplicate_pairs`: the candidates, one row per pair (`entity_a` < `entity_b`),
 *   with their score and reasons; read best first by `duplicate_pairs_best`.
 * - `duplicate_dismissals`: pairs a person or an agent said are not one thing,
 *   with both names as they were then: a rename brings the pair back (the
 *   read compares the names; the finder forgets the dismissal when it sees a
 *   rename after it in the change log, `dismissed_seq`).
 * - `duplicate_state`: per account, how far its change log has been applied
 *   (`applied_seq`), a scan of every space under way when there is no
 *   position to resume from (the first time, or a log compacted past the
 *   position: `scan_seq`, `scan_space`, `scan_cursor`), and a lease so one
 *   node works on an account at a time.
 *
 * No trigger and no foreign key on the graph's tables, so the write path gains
 * nothing: the finder follows the change log after the writes (like the
 * semantic index, migration 019), and a read joins `entities`, so a deleted
 * entity's pairs are gone at once and removed later. The space's tables have a
 * `space_id` and no `account_id`: a deleted space or account is purged with
 * them (features/accounts).
 */
export const sql = /* sql */ `
  create table duplicate_state (
    account_id uuid primary key references accounts (id) on delete cascade,
    applied_seq bigint not null default 0,
    scan_seq bigint,
    scan_space uuid,
    scan_cursor uuid,
    lease_holder uuid,
    lease_until timestamptz,
    updated_at timestamptz not null default now()
  );

  create table duplicate_names (
    space_id uuid not null,
    entity_id uuid not null,
    name text not null,
    keys bigint[] not null,
    primary key (space_id, entity_id, name)
  );
  create index duplicate_names_keys on duplicate_names
    using gin (keys) with (fastupdate = off);

  create table duplicate_pairs (
    space_id uuid not null,
    entity_a uuid not null,
    entity_b uuid not null,
    score real not null check (score >= 0 and score <= 1),
    reasons text[] not null,
    updated_at timestamptz not null default now(),
    primary key (space_id, entity_a, entity_b),
    check (entity_a < entity_b)
  );
  create index duplicate_pairs_best on duplicate_pairs (space_id, score desc, entity_a, entity_b);
  create index duplicate_pairs_by_b on duplicate_pairs (space_id, entity_b);

  create table duplicate_dismissals (
    space_id uuid not null,
    entity_a uuid not null,
    entity_b uuid not null,
    name_a text not null,
    name_b text not null,
    dismissed_seq bigint not null,
    dismissed_at timestamptz not null default now(),
    primary key (space_id, entity_a, entity_b),
    check (entity_a < entity_b)
  );
  create index duplicate_dismissals_by_b on duplicate_dismissals (space_id, entity_b);
`;
