import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../test/harness.js';
import type { DatabaseHandle } from './connection.js';
import { hidden, planOnce, StatementNames } from './prepared.js';

describe('statement names', () => {
  const marked = (text: string) => sql`${planOnce} ${sql.raw(text)}`.compile(dummy).sql;

  it('names only statements marked to be planned once, the same text always the same name', () => {
    const names = new StatementNames();
    expect(names.nameOf('select 1')).toBeUndefined();
    expect(names.nameOf('select 1 /* plan once */')).toBeUndefined();
    const first = names.nameOf(marked('select $1::int'));
    expect(first).toBeDefined();
    expect(names.nameOf(marked('select $1::int'))).toBe(first);
    expect(names.nameOf(marked('select $1::text'))).not.toBe(first);
  });

  it('stops naming new texts at its limit, so nothing grows without bound', () => {
    const names = new StatementNames(2);
    const a = names.nameOf(marked('select 1'));
    const b = names.nameOf(marked('select 2'));
    expect([a, b].every(Boolean)).toBe(true);
    expect(names.nameOf(marked('select 3'))).toBeUndefined();
    expect(names.nameOf(marked('select 1'))).toBe(a);
  });
});

// Compiles statements without a database: only their SQL text is wanted.
const dummy = new Kysely<unknown>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

describe('a statement planned once, on the database', { timeout: 60_000 }, () => {
  let database: DatabaseHandle;
  beforeAll(async () => {
    database = await createTestDatabase();
    await sql`create table notes (id int primary key, body text not null)`.execute(database.db);
  });
  afterAll(() => database.close());

  const insert = (id: number, body: string | null) =>
    sql<{ id: number; body: string }>`
      ${planOnce} insert into notes (id, body)
      select * from json_to_recordset(${JSON.stringify([{ id, body }])}::json) as (id int, body text)
      returning id, body
    `.execute(database.db);

  it('answers each run with its own parameters, past the runs where PostgreSQL plans for the values', async () => {
    for (let id = 1; id <= 8; id++) {
      expect((await insert(id, `note ${id}`)).rows).toEqual([{ id, body: `note ${id}` }]);
    }
  });

  it('raises the database error of a failed run and runs again afterwards, in and out of transactions', async () => {
    await expect(insert(1, 'again')).rejects.toMatchObject({ code: '23505' });
    await expect(insert(20, null)).rejects.toMatchObject({ code: '23502' });
    await expect(
      database.db.transaction().execute(async (trx) => {
        await sql`${planOnce} select count(*)::int as n from notes where id > ${0}`.execute(trx);
        await sql`${planOnce} insert into notes values (${21}, ${'rolled back'})`.execute(trx);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await insert(22, 'after')).rows).toEqual([{ id: 22, body: 'after' }]);
    const counted = await sql<{
      n: number;
    }>`${planOnce} select count(*)::int as n from notes where id > ${0}`.execute(database.db);
    expect(counted.rows).toEqual([{ n: 9 }]);
  });

  it('keeps one plan for a list it reads through `hidden`, however short the lists', async () => {
    await sql`insert into notes select i, 'note ' || i from generate_series(100, 2000) i`.execute(
      database.db,
    );
    const byIds = (ids: number[]) => sql<{ id: number }>`
      ${planOnce} select n.id from unnest(${hidden(sql`${ids}::int[]`)}) as given(id)
      cross join lateral (select id from notes where id = given.id) n order by n.id`;
    for (let run = 0; run < 12; run++) {
      const ids = [100 + run, 200 + run, 300 + run];
      expect((await byIds(ids).execute(database.db)).rows).toEqual(ids.map((id) => ({ id })));
    }
    // Read in the session that ran them: PostgreSQL's pool may have used several.
    if (database.kind !== 'pglite') return;
    const plans = await database.withSession((session) =>
      session.query<{ hidden: boolean; custom: number; generic: number }>(
        `select statement like '%(select $1::int[])%' as hidden,
                custom_plans::int as custom, generic_plans::int as generic
           from pg_prepared_statements where statement like '%unnest(%'`,
      ),
    );
    expect(plans).toContainEqual({ hidden: true, custom: 5, generic: 7 });
  });
});
