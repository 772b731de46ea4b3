import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestDatabase, signUp, type TestApp } from '../test/harness.js';
import { callTool, connectMcp } from '../test/mcp-client.js';
import type { RawSession } from './connection.js';
import { analyzeAtStart, DatabaseUpkeep } from './upkeep.js';

// The server analyzes the graph's tables once enough has changed and writes
// pause: PGlite has no autovacuum, and PostgreSQL's comes a minute or more
// after a burst.

async function estimatedEntities(t: TestApp): Promise<number> {
  const [row] = await t.database.withSession((session) =>
    session.query<{ rows: number }>(
      "select reltuples::float8 as rows from pg_class where relname = 'entities'",
    ),
  );
  return row!.rows;
}

async function lastCheckpoint(t: TestApp): Promise<string> {
  const [row] = await t.database.withSession((session) =>
    session.query<{ lsn: string }>(
      'select checkpoint_lsn::text as lsn from pg_control_checkpoint()',
    ),
  );
  return row!.lsn;
}

describe('database upkeep', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('analyzes after a large change once writes pause, so the planner sees the new rows', async () => {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { user } = await signUp(t.app);
    const client = await connectMcp(base, user.apiKey);
    try {
      const before = t.runtime.upkeep.analyzed;
      await callTool(client, 'create_entities', {
        entities: Array.from({ length: 600 }, (_, i) => ({
          name: `e-${i}`,
          entityType: 'thing',
          observations: [],
        })),
      });
      // Statistics still say the table is (nearly) empty: nothing has analyzed it yet.
      expect(await estimatedEntities(t)).toBeLessThan(100);
      const checkpoint = await lastCheckpoint(t);
      await expect
        .poll(() => t.runtime.upkeep.analyzed, { timeout: 10_000, interval: 200 })
        .toBeGreaterThan(before);
      expect(await estimatedEntities(t)).toBe(600);
      // PGlite never checkpoints on its own: the upkeep does, so its WAL is recycled.
      if (t.database.kind === 'pglite') expect(await lastCheckpoint(t)).not.toBe(checkpoint);
    } finally {
      await client.close();
    }
  });

  it("counts a restarted server's threshold from the rows the statistics already hold", async () => {
    // The first test's 600 entities, counted: a share of them is the threshold.
    await t.database.withSession((session) => session.exec('analyze entities'));
    const upkeep = new DatabaseUpkeep(t.database, {
      minChanges: 50,
      changedFraction: 0.5,
      idleMs: 100,
      checkMs: 50,
    });
    upkeep.start();
    try {
      // Over the minimum, under half of the 600 rows: nothing to do yet.
      upkeep.noteChanges(200);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(upkeep.analyzed).toBe(0);
      upkeep.noteChanges(200);
      await expect.poll(() => upkeep.analyzed, { timeout: 10_000, interval: 100 }).toBe(1);
    } finally {
      upkeep.stop();
    }
  });

  it('on PGlite, vacuums and analyzes only the tables autovacuum would', async (context) => {
    if (t.database.kind !== 'pglite') context.skip(); // PostgreSQL's own autovacuum does this there
    const counts = (table: string) =>
      t.database.withSession(async (session) => {
        await session.query('select pg_stat_force_next_flush()');
        const [row] = await session.query<{ vacuums: number; analyzes: number }>(
          `select vacuum_count::int as vacuums, analyze_count::int as analyzes
             from pg_stat_user_tables where relname = $1`,
          [table],
        );
        return row!;
      });
    await t.database.withSession(async (session) => {
      await session.exec('create table upkeep_probe (id int primary key)');
      await session.exec('insert into upkeep_probe select generate_series(1, 2000)');
      await session.exec('analyze entities'); // nothing left for it to do there
    });
    const probe = await counts('upkeep_probe');
    const entities = await counts('entities');
    const errors: unknown[] = [];
    const upkeep = new DatabaseUpkeep(
      t.database,
      { minChanges: 1, changedFraction: 0, idleMs: 100, checkMs: 50 },
      (error) => errors.push(error),
    );
    upkeep.start();
    try {
      upkeep.noteChanges(1);
      await expect.poll(() => upkeep.analyzed, { timeout: 10_000, interval: 100 }).toBe(1);
    } finally {
      upkeep.stop();
    }
    expect(errors).toEqual([]);
    // 2,000 rows inserted: vacuumed (its pages marked all-visible) and analyzed.
    expect(await counts('upkeep_probe')).toEqual({
      vacuums: probe.vacuums + 1,
      analyzes: probe.analyzes + 1,
    });
    // Nothing changed since its last analyze: left alone.
    expect(await counts('entities')).toEqual(entities);
  });

  it('leaves small changes alone', async () => {
    const before = t.runtime.upkeep.analyzed;
    const { token } = await signUp(t.app);
    await t.app.inject({
      method: 'POST',
      url: '/api/entities',
      headers: { authorization: `Bearer ${token}` },
      payload: { name: 'one', type: 'thing', metadata: {}, observations: [] },
    });
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    expect(t.runtime.upkeep.analyzed).toBe(before);
  });
});

describe('statistics at start', () => {
  /** How many times each table was analyzed, as the statistics say once flushed. */
  async function analyzeCounts(session: RawSession): Promise<Record<string, number>> {
    await session.query('select pg_stat_force_next_flush()');
    const rows = await session.query<{ name: string; count: number }>(
      `select relname as name, analyze_count::int as count from pg_stat_user_tables
        where relname in ('steady', 'grown', 'fresh')`,
    );
    return Object.fromEntries(rows.map((row) => [row.name, row.count]));
  }

  it('analyzes every table after a migration, else only those never analyzed or grown since', async () => {
    const database = await createTestDatabase();
    try {
      await database.withSession(async (session) => {
        await session.exec(`create table steady (n int); create table grown (n int);
          insert into steady select generate_series(1, 5000);
          analyze steady; analyze grown;
          insert into grown select generate_series(1, 5000);
          create table fresh (n int)`);
        const before = await analyzeCounts(session);

        await analyzeAtStart(session, false);
        const after = await analyzeCounts(session);
        expect(after.steady).toBe(before.steady);
        expect(after.grown).toBe(before.grown! + 1);
        expect(after.fresh).toBe(before.fresh! + 1);
        const [grown] = await session.query<{ rows: number }>(
          "select reltuples::float8 as rows from pg_class where relname = 'grown'",
        );
        expect(grown!.rows).toBe(5000);

        await analyzeAtStart(session, false);
        expect(await analyzeCounts(session)).toEqual(after);

        await analyzeAtStart(session, true);
        const migrated = await analyzeCounts(session);
        expect(migrated.steady).toBe(after.steady! + 1);
      });
    } finally {
      await database.close();
    }
  });
});
