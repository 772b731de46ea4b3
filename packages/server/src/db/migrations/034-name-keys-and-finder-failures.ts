/**
 * Names equal but for case, spacing and punctuation, found at create time;
 * and the duplicate finder's record of entities it could not compare
 * (docs/consolidation.md).
 *
 * - `name_key(name)`: a name's key, as `nameKey` in
 *   features/duplicates/name-key.ts computes it (the same tables, spelled
 *   out rather than `lower()`, which follows the database's locale; accents
 *   count). At most 500 characters, so an index entry stays under a btree
 *   page's limit whatever a stored name holds. `alias_keys(space, aliases)`:
 *   each alias's key behind its space, so one GIN entry is one space's alias
 *   (as migration 031 keys its names). It repeats the key's expression rather
 *   than calling `name_key`: an index build runs with only `pg_catalog` on
 *   the search path (PGlite's PostgreSQL 17).
 * - `entities_name_key`, `entities_alias_keys`: a create's likely duplicates
 *   read them beside the create, so a twin written a moment before is named
 *   without waiting for the finder. The alias index is partial, as migration
 *   032's: most entities have no aliases.
 * - `duplicate_failures`: an entity whose comparison failed (a row the
 *   finder cannot read, or the process stopped while it compared that
 *   entity alone), with the reason and the account's seq then. The finder
 *   skips it until a later change renames it, so a bad row never stops the
 *   finder nor makes it loop across restarts. Purged with its space.
 * - `duplicate_state.working_space`, `working_ids`: the entity a finder
 *   compares one at a time after another process left the account without
 *   releasing it (it stopped mid-run): finding one still there the next time
 *   says that entity stopped the process.
 */
const key = (
  value: string,
) => `left(regexp_replace(replace(replace(replace(replace(translate(${value},
    'ABCDEFGHIJKLMNOPQRSTUVWXYZÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝÞĀĂĄĆĈĊČĎĐĒĔĖĘĚĜĞĠĢĤĦĨĪĬĮĲĴĶĹĻĽĿŁŃŅŇŊŌŎŐŒŔŖŘŚŜŞŠŢŤŦŨŪŬŮŰŲŴŶŸŹŻŽΆΈΉΊΌΎΏΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΤΥΦΧΨΩΪΫЀЁЂЃЄЅІЇЈЉЊЋЌЍЎЏАБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯҐ',
    'abcdefghijklmnopqrstuvwxyzàáâãäåæçèéêëìíîïðñòóôõöøùúûüýþāăąćĉċčďđēĕėęěĝğġģĥħĩīĭįĳĵķĺļľŀłńņňŋōŏőœŕŗřśŝşšţťŧũūŭůűųŵŷÿźżžάέήίόύώαβγδεζηθικλμνξοπρτυφχψωϊϋѐёђѓєѕіїјљњћќѝўџабвгдежзийклмнопрстуфхцчшщъыьэюяґ'),
    '++', 'pp'), '+', 'plus'), '#', 'sharp'), '&', 'and'),
    '[\\u0001-\\u002f\\u003a-\\u0040\\u005b-\\u0060\\u007b-\\u00a9\\u00ab-\\u00b1\\u00b4\\u00b6-\\u00b8\\u00bb\\u00bf\\u00d7\\u00f7\\u2000-\\u206f]+',
    '', 'g'), 500)`;

export const sql = /* sql */ `
  create function name_key(name text) returns text language sql immutable parallel safe strict as $$
    select ${key('name')}
  $$;

  create function alias_keys(space uuid, aliases text[]) returns text[]
    language sql immutable parallel safe as $$
    select array(select space::text || ' ' || ${key('a')} from unnest(aliases) a)
  $$;

  create index entities_name_key on entities (space_id, name_key(name));
  create index entities_alias_keys on entities using gin (alias_keys(space_id, aliases))
    where aliases <> '{}';

  create table duplicate_failures (
    space_id uuid not null,
    entity_id uuid not null,
    reason text not null,
    failed_seq bigint not null,
    failed_at timestamptz not null default now(),
    primary key (space_id, entity_id)
  );

  alter table duplicate_state add column working_space uuid, add column working_ids uuid[];
`;
