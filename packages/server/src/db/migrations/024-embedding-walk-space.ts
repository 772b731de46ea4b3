/**
 * The semantic index's walk across memory spaces (migration 022): an
 * account's observations now live in its spaces, so a walk of the account
 * (migration 019: the first one, a new model, a change log compacted past
 * the applied position) goes through its spaces in id order, each one's
 * observations then vectors by id. `walk_space` is the space the walk is in
 * (null: not begun, the first space next); with `walk_phase` and
 * `walk_cursor` it is where a walk resumes after a restart.
 */
export const sql = /* sql */ `
  alter table embedding_state add column walk_space uuid;
`;
