-- Proposed shape for searchEntities (graph.repository.ts), measured by bench/graph
-- on 2026-11-21 against 100k entities. Same rows, same order, same exact total as
-- the current query; the 10% search drops from ~78 ms to ~19 ms on PostgreSQL and
-- from ~115 ms to ~31 ms on PGlite (statement alone, interleaved runs, same load).
--
-- Needs one more index (a new migration), so the name arm can walk names in
-- order and stop after :k rows when a term is common:
--
--   create index entities_name_sorted on entities (account_id, lower(name), id);
--
-- psql variables: :'acct' account id, :'term' lower-cased query, :k = offset + limit, :off = offset.
-- In Kysely: ${term}, ${prefix} = escapeLike(term) || '%', ${contains} = '%' || escapeLike(term) || '%',
-- and the type filter added to every arm, as today.
-- Run: psql "$URL" -v acct=... -v term=alpha -v k=20 -v off=0 -f bench/graph/proposed-search.sql

with name_page as (
  -- exact, then prefix, then substring: each arm bounded by :k, read in name order
  (select e.id, 0 as rank, lower(e.name) as lname from entities e
    where e.account_id = :'acct' and lower(e.name) = :'term')
  union all
  (select e.id, 1, lower(e.name) from entities e
    where e.account_id = :'acct' and lower(e.name) like :'term' || '%' and lower(e.name) <> :'term'
    order by lower(e.name), e.id limit :k)
  union all
  (select e.id, 2, lower(e.name) from entities e
    where e.account_id = :'acct' and lower(e.name) like '%' || :'term' || '%'
      and lower(e.name) not like :'term' || '%'
    order by lower(e.name), e.id limit :k)
),
more as (
  -- type and observation hits rank below every name hit: only read when names
  -- did not fill the page (a one-time filter; PostgreSQL skips the arm otherwise)
  select e.id, 3 as rank, lower(e.name) as lname
    from entities e
   where (select count(*) from name_page) < :k and e.account_id = :'acct'
     and e.type in (select t.type from entity_type_counts t
                     where t.account_id = :'acct' and lower(t.type) like '%' || :'term' || '%')
  union all
  select e.id, 4, lower(e.name)
    from (select distinct o.entity_id from observations o
           where (select count(*) from name_page) < :k
             and o.account_id = :'acct' and lower(o.content) like '%' || :'term' || '%') o
    join entities e on e.account_id = :'acct' and e.id = o.entity_id
),
page as (
  select id, min(rank) as rank, min(lname) as lname
    from (select * from name_page union all select * from more) h
   group by id
   order by 2, 3, 1
   limit :k
),
total as (
  -- exact total: ids only, no join back, no window function. This is now the
  -- dominant cost for a common term (~12 ms PostgreSQL, ~19 ms PGlite at 10,000
  -- matches). Replacing it by a capped count, e.g. count over `... limit 1001`
  -- reported as "1000+", makes the whole query ~7.5 ms / ~22 ms (measured).
  select count(*)::int as n from (
    select e.id from entities e
     where e.account_id = :'acct' and lower(e.name) like '%' || :'term' || '%'
    union
    select e.id from entities e
     where e.account_id = :'acct'
       and e.type in (select t.type from entity_type_counts t
                       where t.account_id = :'acct' and lower(t.type) like '%' || :'term' || '%')
    union
    select o.entity_id from observations o
     where o.account_id = :'acct' and lower(o.content) like '%' || :'term' || '%'
  ) c
)
select e.id, e.name, e.type, e.metadata, e.observations_count, e.created_at, e.updated_at,
       (select n from total) as total
  from page p join entities e on e.account_id = :'acct' and e.id = p.id
 order by p.rank, p.lname, p.id
offset :off;
