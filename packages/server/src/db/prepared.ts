import { sql, type RawBuilder } from 'kysely';

const MARK = '/* plan once */';

/**
 * Statements planned once per database session (decision 015). PostgreSQL
 * spent as long planning many of the server's statements as running them
 * (pg_stat_statements: 0.48 ms to plan a one-entity insert; 0.20 ms to plan a
 * read by id that ran in 0.12). A statement whose text starts with
 * `planOnce` is sent as a named (prepared) statement: parsed once per
 * session, and once PostgreSQL finds its generic plan no worse than the
 * custom ones, never planned again.
 *
 * Mark only statements whose best plan does not depend on their parameters'
 * values: rows arriving as one JSON or array parameter, lookups by primary
 * key. Reads whose plan depends on an id list's length, a LIMIT or a search
 * term stay unnamed and are planned for their values each time.
 */
export const planOnce = sql.raw(MARK);

/**
 * A value a marked statement reads through a sub-select, so that no plan can
 * see it. PostgreSQL plans a named statement for its values five times and
 * then keeps its generic plan only if that is estimated no costlier; a custom
 * plan sees an array's length (a generic one assumes ten elements) or a
 * LIMIT, so for short lists the custom plans always looked cheaper and the
 * statement was planned on every call (0.2 ms each on PGlite) for the same
 * plan. Seen through a sub-select, the value costs the same in every plan.
 */
export const hidden = <T>(value: RawBuilder<T>) => sql<T>`(select ${value})`;

/**
 * Names for the marked statements. At most `limit` distinct texts are named,
 * so neither this map nor a session's prepared statements can grow without
 * bound, even if a marked statement's text came to vary with its input.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();

  constructor(private readonly limit = 128) {}

  /** The statement's name, or undefined when it runs unnamed. */
  nameOf(text: string): string | undefined {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < this.limit && text.trimStart().startsWith(MARK)) {
      name = `engram_${this.names.size}`;
      this.names.set(text, name);
    }
    return name;
  }
}
