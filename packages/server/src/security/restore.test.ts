import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { BackupRefusedError } from '../db/backup-file.js';
import { backupPostgres, restorePostgres } from '../db/backup-postgres.js';
import { openDatabase } from '../db/connection.js';
import { migrations } from '../db/migrations/index.js';
import { createRuntime } from '../runtime.js';
import { createEntity, createRelation, newAccount } from '../test/graph-fixtures.js';
import { testConfig } from '../test/harness.js';

/**
 * `engram restore` of a PostgreSQL backup runs none of the file's SQL (issue
 * "Hardening IV", item 4): a backup may come from anywhere, and the role in
 * DATABASE_URL may do a great deal. Only the rows of Engram's tables go in,
 * into the schema this code's migrations make. The files below are real
 * backups with a statement written into the archive, as an attacker would.
 * PostgreSQL only: runs when TEST_DATABASE_URL names a server.
 */

const server = process.env.TEST_DATABASE_URL;
const stamp = Date.now().toString(36);

describe.skipIf(!server)(
  'restoring a PostgreSQL backup runs none of its SQL',
  { timeout: 600_000 },
  () => {
    const created: string[] = [];
    let folder: string;
    let backupFile: string;
    let sourceUrl: string;

    const urlOf = (name: string) => {
      const url = new URL(server!);
      url.pathname = `/${name}`;
      return url.toString();
    };
    async function query<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query<R>(text)).rows;
      } finally {
        await client.end();
      }
    }
    /** A new, empty database; dropped after the file. */
    async function newDatabase(role: string): Promise<string> {
      const name = `engram_restore_${role}_${stamp}`;
      await query(server!, `create database ${name}`);
      created.push(name);
      return urlOf(name);
    }
    /** Every relation outside PostgreSQL's own schemas. */
    const relations = async (url: string) =>
      (
        await query<{ name: string }>(
          url,
          `select n.nspname || '.' || c.relname as name from pg_class c
           join pg_namespace n on n.oid = c.relnamespace
          where n.nspname not in ('pg_catalog', 'information_schema')
            and n.nspname not like 'pg\\_toast%'`,
        )
      ).map((row) => row.name);
    /** Each table's rows, summed up: equal sums, equal rows. */
    async function contents(url: string): Promise<Record<string, string>> {
      const tables = await query<{ name: string }>(
        url,
        `select tablename as name from pg_tables where schemaname = 'public' order by 1`,
      );
      const sums: Record<string, string> = {};
      for (const { name } of tables) {
        const [row] = await query<{ sum: string }>(
          url,
          `select count(*) || ' ' || md5(coalesce(string_agg(t::text, E'\\n' order by t::text), '')) as sum
           from public."${name}" t`,
        );
        sums[name] = row!.sum;
      }
      return sums;
    }
    /** The triggers' states and the foreign keys: what a restore sets aside and puts back. */
    const constraints = async (url: string) => [
      ...(await query<{ item: string }>(
        url,
        `select tgrelid::regclass || ' ' || tgname || ' ' || tgenabled::text as item from pg_trigger
        where not tgisinternal order by 1`,
      )),
      ...(await query<{ item: string }>(
        url,
        `select conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) as item
         from pg_constraint where contype = 'f' order by 1`,
      )),
    ];
    /** The backup with `find` (which must be there once) replaced by `put`, padded to its length. */
    async function tampered(name: string, find: RegExp, put: string): Promise<string> {
      const bytes = await readFile(backupFile);
      const text = bytes.toString('latin1');
      const match = find.exec(text);
      expect(match, `${find} in the backup`).not.toBeNull();
      const padded = put.padEnd(match![0].length, ' ');
      expect(padded.length).toBe(match![0].length);
      const out = Buffer.from(bytes);
      out.write(padded, match!.index, 'latin1');
      const file = join(folder, name);
      await writeFile(file, out, { mode: 0o600 });
      return file;
    }
    async function refusalOf(file: string, target: string): Promise<string> {
      const error = await restorePostgres(file, target, true).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(BackupRefusedError);
      return (error as Error).message;
    }

    beforeAll(async () => {
      folder = await mkdtemp(join(tmpdir(), 'engram-restore-'));
      backupFile = join(folder, 'today.engram-backup');
      sourceUrl = await newDatabase('source');
      // Written through the app, so the triggers' counters and derived rows are real.
      const config = testConfig();
      const database = await openDatabase({ databaseUrl: sourceUrl, dataDir: '' });
      const runtime = await createRuntime(config, { database });
      const app = await buildApp({ config, runtime });
      await app.ready();
      try {
        const account = await newAccount(app);
        const ada = await createEntity(account.req, {
          name: 'Ada Lovelace',
          type: 'person',
          observations: ['wrote the first program', 'worked with Babbage'],
        });
        const engine = await createEntity(account.req, {
          name: 'Analytical Engine',
          observations: ['a mechanical computer'],
        });
        await createRelation(account.req, ada, engine, 'programmed');
      } finally {
        await app.close();
        await runtime.close();
        await database.close();
      }
      await backupPostgres(sourceUrl, backupFile);
    });
    afterAll(async () => {
      for (const name of created)
        await query(server!, `drop database if exists ${name} with (force)`);
      await rm(folder, { recursive: true, force: true });
    });

    it("restores a backup of today's version: every row, the counters once, the triggers and keys back", async () => {
      const target = await newDatabase('today');
      const done = await restorePostgres(backupFile, target, false);
      expect(done.applied).toEqual([]);
      expect(await contents(target)).toEqual(await contents(sourceUrl));
      const [accounts] = await query<{ entities: string }>(
        target,
        'select sum(entity_count)::text as entities from accounts',
      );
      expect(accounts!.entities).toBe('2');
      expect(await constraints(target)).toEqual(await constraints(sourceUrl));
    });

    it('restores an older backup at its own migration level, then migrates it', async () => {
      const source = await newDatabase('older');
      const level = migrations.length - 3;
      const client = new pg.Client({ connectionString: source });
      await client.connect();
      try {
        await client.query(
          'create table schema_migrations (name text primary key, applied_at timestamptz not null default now())',
        );
        for (const migration of migrations.slice(0, level)) {
          await client.query(migration.sql);
          await client.query(
            "insert into schema_migrations (name, applied_at) values ($1, '2020-01-01')",
            [migration.name],
          );
        }
        await client.query("insert into accounts (name) values ('from an older Engram')");
      } finally {
        await client.end();
      }
      const file = join(folder, 'older.engram-backup');
      await backupPostgres(source, file);

      const target = await newDatabase('older_copy');
      const done = await restorePostgres(file, target, false);
      expect(done.applied).toEqual(migrations.slice(level).map((migration) => migration.name));
      const applied = await query<{ name: string; old: boolean }>(
        target,
        "select name, applied_at = '2020-01-01' as old from schema_migrations order by name",
      );
      expect(applied.filter((row) => row.old).map((row) => row.name)).toEqual(
        migrations.slice(0, level).map((migration) => migration.name),
      );
      expect(applied).toHaveLength(migrations.length);
      const accounts = await query<{ name: string }>(target, 'select name from accounts');
      expect(accounts).toEqual([{ name: 'from an older Engram' }]);
    });

    const SETVAL = /SELECT pg_catalog\.setval\('public\.billing_provider_reads', [^)]*\);/;
    const marker = join(tmpdir(), `engram-pwned-${stamp}`);
    let injected = 0;

    it.each([
      ['a CREATE TABLE', 'CREATE TABLE public.pwned (secret text);', 'CREATE TABLE public.pwned'],
      [
        'a COPY to a program',
        `COPY (SELECT 1) TO PROGRAM 'touch ${marker}';`,
        'holds a COPY pg_dump does not write',
      ],
      ['a psql meta-command', `\\! touch ${marker}\n`, '\\\\! touch'],
    ])(
      'refuses a file with %s, naming the line and why, and creates nothing',
      async (_what, statement, reason) => {
        injected += 1;
        const file = await tampered(`injected-${injected}.engram-backup`, SETVAL, statement);
        const target = await newDatabase(`injected_${injected}`);
        const message = await refusalOf(file, target);
        expect(message).toMatch(/refused at line \d+ of its SQL/);
        expect(message).toContain(reason);
        expect(message).toContain('Nothing was restored');
        expect(await relations(target)).toEqual([]);
        expect(existsSync(marker)).toBe(false);
      },
    );

    it('refuses a COPY into a column or a table Engram does not have', async () => {
      const target = await newDatabase('columns');
      const column = await tampered(
        'column.engram-backup',
        /COPY public\.accounts \(id, name,/,
        'COPY public.accounts (id, nome,',
      );
      const message = await refusalOf(column, target);
      expect(message).toMatch(/refused at line \d+ of its SQL/);
      expect(message).toContain('copies into column "nome", which public.accounts does not have');

      const table = await tampered(
        'table.engram-backup',
        /COPY public\.accounts \(/,
        'COPY public.acc0unts (',
      );
      expect(await refusalOf(table, target)).toContain(
        "copies into public.acc0unts, which is not one of Engram's tables",
      );
      expect(await relations(target)).toEqual([]);
    });

    it('a refused --force restore leaves the database it would replace as it was', async () => {
      const target = await newDatabase('kept');
      await restorePostgres(backupFile, target, false);
      const before = await contents(target);
      const file = await tampered(
        'drop.engram-backup',
        SETVAL,
        'DROP TABLE public.accounts CASCADE;',
      );
      expect(await refusalOf(file, target)).toContain('DROP TABLE public.accounts');
      expect(await contents(target)).toEqual(before);
      expect(await constraints(target)).toEqual(await constraints(sourceUrl));
    });
  },
);
