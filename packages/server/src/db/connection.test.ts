import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createTestDatabase } from '../test/harness.js';
import { openDatabase } from './connection.js';

describe('PGlite in a data folder', { timeout: 120_000 }, () => {
  const folders: string[] = [];
  afterAll(async () => {
    await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
  });

  const sharedBuffers = async (db: Awaited<ReturnType<typeof openDatabase>>['db']) =>
    (await sql<{ shared_buffers: string }>`show shared_buffers`.execute(db)).rows[0]
      ?.shared_buffers;

  it('creates a new folder, applies its buffer size and compiler, and reopens it with what was written', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'engram-connection-'));
    folders.push(parent);
    const dataDir = join(parent, 'data');

    const first = await openDatabase({ dataDir, sharedBuffersMb: 24, pgliteCompiler: 'baseline' });
    try {
      expect(await sharedBuffers(first.db)).toBe('24MB');
      await sql`create table kept (note text)`.execute(first.db);
      await sql`insert into kept values ('written on the first start')`.execute(first.db);
    } finally {
      await first.close();
    }

    const again = await openDatabase({
      dataDir,
      sharedBuffersMb: 16,
      pgliteCompiler: 'optimizing',
    });
    try {
      expect(await sharedBuffers(again.db)).toBe('16MB');
      const rows = (await sql<{ note: string }>`select note from kept`.execute(again.db)).rows;
      expect(rows).toEqual([{ note: 'written on the first start' }]);
    } finally {
      await again.close();
    }
  });

  it('compiles PostgreSQL with the baseline compiler unless told otherwise', () => {
    expect(loadConfig({}).PGLITE_COMPILER).toBe('baseline');
    expect(loadConfig({ PGLITE_COMPILER: 'optimizing' }).PGLITE_COMPILER).toBe('optimizing');
    expect(() => loadConfig({ PGLITE_COMPILER: 'fast' })).toThrow(/PGLITE_COMPILER/);
  });
});

describe('transactions on the embedded database', { timeout: 120_000 }, () => {
  it('open with their first statement, roll back whole, and commit or end without any', async () => {
    const handle = await openDatabase({ dataDir: 'memory://' });
    const { db } = handle;
    try {
      await sql`create table notes (note text not null)`.execute(db);
      const xact = sql<{ id: string }>`select pg_current_xact_id()::text as id`;

      // The first statement already runs inside the transaction.
      const idOf = async (on: typeof db) => (await xact.execute(on)).rows[0]!.id;
      const [first, last] = await db.transaction().execute(async (trx) => {
        const opened = await idOf(trx);
        await sql`insert into notes values ('kept')`.execute(trx);
        return [opened, await idOf(trx)];
      });
      expect(first).toBe(last);

      // A failure after the first statement undoes it; a failing first statement too.
      await expect(
        db.transaction().execute(async (trx) => {
          await sql`insert into notes values ('undone')`.execute(trx);
          await sql`insert into notes values (null)`.execute(trx);
        }),
      ).rejects.toThrow(/null value/);
      await expect(
        db.transaction().execute(async (trx) => {
          await sql`insert into notes values (null)`.execute(trx);
        }),
      ).rejects.toThrow(/null value/);

      // Transactions that run nothing, committed or failed.
      await db.transaction().execute(async () => undefined);
      await expect(
        db.transaction().execute(async () => {
          throw new Error('given up before writing');
        }),
      ).rejects.toThrow('given up before writing');

      const notes = await sql<{ note: string }>`select note from notes`.execute(db);
      expect(notes.rows).toEqual([{ note: 'kept' }]);
      // Not left inside a transaction: each statement is its own again.
      expect(await idOf(db)).not.toBe(await idOf(db));
    } finally {
      await handle.close();
    }
  });
});

describe('sharing the embedded database', { timeout: 120_000 }, () => {
  it('sends reads together, and gives a transaction or a session the database to itself', async () => {
    const handle = await openDatabase({ dataDir: 'memory://' });
    const { db } = handle;
    try {
      await sql`create table notes (note text not null)`.execute(db);
      const count = async () =>
        (await sql<{ n: number }>`select count(*)::int as n from notes`.execute(db)).rows[0]!.n;

      // Reads asked for together each get their own answer.
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => sql<{ i: number }>`select ${i}::int as i`.execute(db)),
      );
      expect(answers.map((answer) => answer.rows[0]!.i)).toEqual([...Array(20).keys()]);

      // A read asked for while a transaction is open waits for its end, never
      // running inside it (it would see the uncommitted row) or between its statements.
      let committed = false;
      let inTransaction!: () => void;
      const opened = new Promise<void>((resolve) => (inTransaction = resolve));
      const writing = db.transaction().execute(async (trx) => {
        await sql`insert into notes values ('one')`.execute(trx);
        inTransaction();
        await new Promise((resolve) => setTimeout(resolve, 50));
        await sql`insert into notes values ('two')`.execute(trx);
        committed = true;
      });
      await opened;
      const seen = await count();
      expect(committed).toBe(true);
      expect(seen).toBe(2);
      await writing;

      // A failed transaction gives the database back too.
      await expect(
        db.transaction().execute(async (trx) => {
          await sql`insert into notes values (null)`.execute(trx);
        }),
      ).rejects.toThrow(/null value/);
      expect(await count()).toBe(2);

      // A raw session (migrations, ANALYZE) waits for reads already sent and holds back new ones.
      const order: string[] = [];
      const before = count();
      const session = handle.withSession(async (raw) => {
        await raw.exec("insert into notes values ('three')");
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.push('session ends');
      });
      const after = count().then((n) => {
        order.push('read sent after');
        return n;
      });
      expect(await Promise.all([before, after, session])).toEqual([2, 3, undefined]);
      expect(order).toEqual(['session ends', 'read sent after']);
    } finally {
      await handle.close();
    }
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL connections', () => {
  it('run without JIT or parallel workers, and with the statement timeout', async () => {
    const database = await createTestDatabase(7_000);
    try {
      const setting = async (name: string) =>
        (
          await sql<{ value: string }>`select current_setting(${name}) as value`.execute(
            database.db,
          )
        ).rows[0]?.value;
      expect(await setting('jit')).toBe('off');
      expect(await setting('max_parallel_workers_per_gather')).toBe('0');
      expect(await setting('statement_timeout')).toBe('7s');
    } finally {
      await database.close();
    }
  });
});
