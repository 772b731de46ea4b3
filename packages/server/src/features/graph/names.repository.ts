import { sql, type RawBuilder } from 'kysely';

/** How every by-name statement finds an entity, in a file of its own: every repository of the graph uses it. */

/**
 * The space's entity called `name`: by its name, else by one of its aliases
 * (migration 032; the partial index holds only entities that have aliases).
 * A subquery for a lateral join, one probe per name.
 *
 * One entity, always the same: the name's holder (names are unique in a
 * space), else the earliest created of the alias's holders, then the lowest
 * id. An alias is one entity's only through writes, but an import could once
 * give it to several, or one entity an alias that is another's name. The
 * alias branch runs only when no entity has the name, whatever order the
 * database reads the branches in. (`named_so`: an alias no caller's `name`
 * refers to.)
 */
export const entityNamed = (spaceId: string, name: RawBuilder<unknown>, columns = sql`e.*`) => sql`(
  (select ${columns} from entities e where e.space_id = ${spaceId} and e.name = ${name} limit 1)
  union all
  (select ${columns} from entities e
    where e.space_id = ${spaceId} and e.aliases <> '{}' and e.aliases @> array[${name}::text]
      and not exists (select 1 from entities named_so
                       where named_so.space_id = ${spaceId} and named_so.name = ${name})
    order by e.created_at, e.id
    limit 1)
  limit 1)`;
