/**
 * Set-based seeding of one account's graph, straight into the tables, keeping
 * every derived column exactly as the graph service would leave it:
 * entities.observations_count, entity_degrees, entity_type_counts, unique
 * relations without self-loops, observation positions 0..n-1.
 *
 * Ids are deterministic (md5 of the entity's number), so relations can name
 * their ends without a lookup. Names carry searchable words: COMMON_TERMS each
 * sit in 10% of names, RARE_TERMS each in about 10; no other text (other
 * names, observations, types) contains them, so the match counts are exact.
 */
import type { RawSession } from '../../packages/server/src/db/connection.js';

export const ENTITY_TYPES = [
  'person',
  'concept',
  'company',
  'technology',
  'product',
  'event',
  'project',
  'place',
];

const RELATION_TYPES = [
  'knows',
  'works_at',
  'uses',
  'part_of',
  'related_to',
  'depends_on',
  'created',
  'located_in',
];

/** Each in 10% of the names (i % 10 = 0 and i % 10 = 5). */
export const COMMON_TERMS = ['alpha', 'omega'];
/** Each in about 10 names, whatever the entity count. */
export const RARE_TERMS = ['zephyrine', 'quillwort', 'marzipane', 'obsidiana'];

/** Filler words for names and observation texts; none contains a search term above. */
const WORDS = `
  atlas beacon cobalt dynamo ember falcon granite harbor indigo juniper kernel lantern meadow
  nebula orchard pepper quartz raven saffron timber umber velvet willow xenon yonder zinc
  anchor bramble cedar drift eclipse fjord glacier hollow iris jasper kestrel lagoon mosaic
  nimbus onyx prism quiver ripple summit thistle tundra vertex wander yarrow zenith acorn
  basalt canyon dusk estuary fern grove heron ivory jetty kelp lichen marble nectar opal pebble
  reef sierra tide upland vale wren yew archive budget client deadline roadmap
  launch meeting invoice contract sprint release feature incident metric pipeline backlog
  review design prototype customer vendor partner research patent license migration rollout
  database cluster network server browser compiler runtime protocol schema gateway cache queue
  sensor battery engine turbine satellite rocket drone robot camera printer router laptop
  london paris berlin tokyo lagos lima oslo cairo delhi sydney toronto madrid vienna prague
`
  .trim()
  .split(/\s+/);

const FORBIDDEN = [...COMMON_TERMS, ...RARE_TERMS];
for (const word of [...WORDS, ...ENTITY_TYPES, ...RELATION_TYPES, 'entity', 'observation']) {
  const clash = FORBIDDEN.find((term) => word.includes(term) || term.includes(word));
  if (clash) throw new Error(`seed word "${word}" overlaps search term "${clash}"`);
}

const HUBS = 50;

export interface SeedCounts {
  entities: number;
  observations: number;
  relations: number;
}

export interface SeedResult {
  counts: SeedCounts;
  /** Milliseconds per phase, in order. */
  phases: [string, number][];
  totalMs: number;
}

const textArray = (items: string[]) => `array[${items.map((item) => `'${item}'`).join(',')}]`;

/** The uuid of entity number `expr` (an SQL integer expression). */
const idOf = (expr: string) => `md5('engram-bench:' || (${expr})::text)::uuid`;

/** A pseudo-random non-negative integer from an SQL text expression. */
const hash = (expr: string) => `(hashtext(${expr})::bigint & 2147483647)`;

const word = (seed: string) => `(${textArray(WORDS)})[1 + ${hash(seed)} % ${WORDS.length}]`;

export async function seedGraph(
  session: RawSession,
  options: { accountId: string; entities: number; log?: (line: string) => void },
): Promise<SeedResult> {
  const n = options.entities;
  if (!Number.isInteger(n) || n < 100) throw new Error('seed at least 100 entities');
  const account = options.accountId;
  if (!/^[0-9a-f-]{36}$/i.test(account)) throw new Error(`bad account id ${account}`);
  const log = options.log ?? (() => {});
  const phases: [string, number][] = [];
  const started = performance.now();
  async function phase(name: string, run: () => Promise<void>) {
    const t0 = performance.now();
    await run();
    const ms = performance.now() - t0;
    phases.push([name, ms]);
    log(`  ${name.padEnd(34)} ${(ms / 1000).toFixed(1).padStart(6)} s`);
  }

  const acct = `'${account}'::uuid`;
  const width = Math.max(6, String(n - 1).length);
  const rareEvery = Math.floor(n / 10);
  const chunk = 25_000;

  // Bulk loading: build secondary indexes once at the end instead of row by row.
  // Their definitions are read from the live schema, so this follows the migrations.
  const indexes = await session.query<{ indexname: string; indexdef: string }>(
    `select i.indexname, i.indexdef
       from pg_indexes i
      where i.schemaname = current_schema()
        and i.tablename in ('entities', 'observations', 'relations')
        and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`,
  );
  await phase(`drop ${indexes.length} secondary indexes`, async () => {
    for (const index of indexes) await session.exec(`drop index "${index.indexname}"`);
  });

  // Relations first, as entity numbers, so each entity's degree is known when it is inserted.
  // Each entity links to 2 others: one uniformly random; the other random too, except
  // that 5% of those point at one of 50 hubs (a skewed, more realistic degree
  // distribution). A third candidate per entity tops up after dropping self-loops and
  // repeated pairs, so exactly 2n relations remain.
  await phase('plan relations', async () => {
    await session.exec(`
      create temp table bench_rel as
      select f, t, j from (
        select distinct on (f, t) f, t, j
          from (
            select i as f, j,
                   case when j = 1 and ${hash(`'h' || i`)} % 20 = 0
                        then ${hash(`'hub' || i`)} % ${HUBS}
                        else (i + 1 + ${hash(`'r' || i || ':' || j`)} % ${n - 1}) % ${n} end as t
              from generate_series(0, ${n - 1}) i cross join generate_series(0, 2) j
          ) c
         where f <> t
         order by f, t, j
      ) d
      order by j, f
      limit ${2 * n};
      create temp table bench_degree as
      select e, count(*)::int as degree
        from (select f as e from bench_rel union all select t from bench_rel) x
       group by e;
      create index on bench_degree (e);
      analyze bench_rel;
      analyze bench_degree;
    `);
  });

  const commonCase = COMMON_TERMS.map((term, k) => `when i % 10 = ${k * 5} then '${term}'`).join(
    ' ',
  );
  const rareOffsets = [3, 7, 13, 17];
  const rareCase = RARE_TERMS.map(
    (term, k) => `when i % ${rareEvery} = ${rareOffsets[k]} then '${term}'`,
  ).join(' ');

  await phase(`insert ${n.toLocaleString('en-US')} entities`, async () => {
    for (let from = 0; from < n; from += chunk) {
      const to = Math.min(n, from + chunk) - 1;
      await session.exec(`
        insert into entities (space_id, id, name, type, metadata, observations_count,
                              created_at, updated_at)
        select ${acct}, ${idOf('i')},
               'entity-' || lpad(i::text, ${width}, '0') || ' '
                 || case ${rareCase} ${commonCase} else ${word(`'a' || i`)} end
                 || ' ' || ${word(`'b' || i`)},
               (${textArray(ENTITY_TYPES)})[1 + (hashtext('type' || i) & 7)],
               jsonb_build_object('source', 'bench', 'rank', i % 100),
               3,
               now() - (${n} - i) * interval '1 second',
               now() - (${n} - i) * interval '1 second'
          from generate_series(${from}, ${to}) i
         order by i
      `);
    }
  });

  await phase(`insert ${(3 * n).toLocaleString('en-US')} observations`, async () => {
    for (let from = 0; from < n; from += chunk) {
      const to = Math.min(n, from + chunk) - 1;
      await session.exec(`
        insert into observations (space_id, id, entity_id, content, metadata, position, created_at)
        select ${acct}, gen_random_uuid(), ${idOf('i')},
               case p
                 when 0 then 'Mentioned together with ' || ${word(`'o' || i`)} || ' and '
                             || ${word(`'p' || i`)} || ' during the ' || ${word(`'q' || i`)}
                             || ' review'
                 when 1 then 'Prefers ' || ${word(`'s' || i`)} || ' over ' || ${word(`'t' || i`)}
                             || '; last seen near ' || ${word(`'u' || i`)}
                 else 'Owns the ' || ${word(`'v' || i`)} || ' ' || ${word(`'w' || i`)}
                      || ' since ' || (2000 + i % 25)::text
               end,
               case when p = 0 then '{"source":"bench"}'::jsonb end,
               p,
               now() - (${n} - i) * interval '1 second' + p * interval '1 millisecond'
          from generate_series(${from}, ${to}) i cross join generate_series(0, 2) p
      `);
    }
  });

  await phase(`insert ${(2 * n).toLocaleString('en-US')} relations`, async () => {
    await session.exec(`
      insert into relations (space_id, id, from_id, to_id, type, created_at)
      select ${acct}, gen_random_uuid(), ${idOf('f')}, ${idOf('t')},
             (${textArray(RELATION_TYPES)})[1 + (hashtext('rel' || f || ':' || j) & 7)],
             now() - (${n} - f) * interval '1 second' + j * interval '1 millisecond'
        from bench_rel;
      insert into entity_degrees (space_id, entity_id, degree)
      select ${acct}, ${idOf('e')}, degree from bench_degree;
      drop table bench_rel;
      drop table bench_degree;
    `);
  });

  await phase('entity_type_counts', async () => {
    await session.exec(`
      insert into entity_type_counts (space_id, type, count)
      select ${acct}, type, count(*)::int from entities where space_id = ${acct} group by type
      on conflict (space_id, type) do update set count = excluded.count
    `);
  });

  await phase(`recreate ${indexes.length} secondary indexes`, async () => {
    for (const index of indexes) await session.exec(index.indexdef);
  });

  await phase('analyze', async () => {
    await session.exec(
      'analyze entities; analyze observations; analyze relations; analyze entity_type_counts',
    );
  });

  const [row] = await session.query<{ entities: number; observations: number; relations: number }>(
    `select (select count(*)::int from entities where space_id = ${acct}) as entities,
            (select count(*)::int from observations where space_id = ${acct}) as observations,
            (select count(*)::int from relations where space_id = ${acct}) as relations`,
  );
  return { counts: row!, phases, totalMs: performance.now() - started };
}

/** Checks the derived columns against the rows, as the service keeps them. */
export async function checkSeed(session: RawSession, accountId: string): Promise<string[]> {
  const acct = `'${accountId}'::uuid`;
  const [row] = await session.query<Record<string, number>>(`
    with obs as (
      select entity_id, count(*) as c, count(distinct position) as positions, max(position) as top
        from observations where space_id = ${acct} group by entity_id
    ),
    deg as (
      select id, count(*) as c
        from (select from_id as id from relations where space_id = ${acct}
              union all
              select to_id from relations where space_id = ${acct}) x
       group by id
    )
    select
      (select count(*)::int from entities e left join obs on obs.entity_id = e.id
        where e.space_id = ${acct} and e.observations_count <> coalesce(obs.c, 0))
        as bad_observation_counts,
      (select count(*)::int from obs where positions <> c or top <> c - 1)
        as bad_positions,
      (select count(*)::int from entities e left join deg on deg.id = e.id
         left join entity_degrees d on d.space_id = e.space_id and d.entity_id = e.id
        where e.space_id = ${acct} and coalesce(d.degree, 0) <> coalesce(deg.c, 0))
        as bad_degrees,
      (select count(*)::int from (
          select type, count(*)::int as c from entities where space_id = ${acct} group by type
          except select type, count from entity_type_counts where space_id = ${acct}) x)
        as bad_type_counts,
      (select count(*)::int from relations where space_id = ${acct} and from_id = to_id)
        as self_loops,
      (select count(*)::int from (
          select 1 from relations where space_id = ${acct}
           group by from_id, to_id, type having count(*) > 1) x)
        as duplicate_relations
  `);
  return Object.entries(row!)
    .filter(([, count]) => count > 0)
    .map(([check, count]) => `${check}: ${count}`);
}
