/**
 * Recall finds the entities a question names by the words of their aliases
 * as by those of their names (migration 028's `entities_name_words`).
 *
 * `alias_words(aliases)`: an entity's aliases as English words, one
 * tsvector (`array_to_string` is only stable, so it is wrapped: for a
 * `text[]` it depends on no setting). The index is partial, as migration
 * 032's: most entities have no aliases, and they cost a write nothing.
 */
export const sql = /* sql */ `
  create function alias_words(aliases text[]) returns tsvector language sql immutable parallel safe as $$
    select to_tsvector('english', array_to_string(aliases, ' '))
  $$;
  create index entities_alias_words on entities
    using gin (space_id, alias_words(aliases)) with (fastupdate = on, gin_pending_list_limit = 256)
    where aliases <> '{}';
`;
