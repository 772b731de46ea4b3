import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../test/harness.js';
import type { DatabaseHandle } from './connection.js';
import { migrate } from './migrate.js';

// `db/schema.ts` (what Kysely compiles against) and the migrations (what the
// database holds) are written by hand: this compares them, column by column,
// on the database the tests run on (PGlite, or PostgreSQL in CI).

/** What a column holds as TypeScript sees it, reduced to a few kinds. */
type Kind = 'string' | 'number' | 'bigint' | 'boolean' | 'date' | 'json' | 'bytes' | 'array';

interface Column {
  kinds: Set<Kind>;
  nullable: boolean;
}

/** The kinds a column of this PostgreSQL type may be typed as (bigint and numeric arrive as strings). */
const ACCEPTED: Record<string, Kind[]> = {
  text: ['string'],
  '"char"': ['string'],
  'character varying': ['string'],
  uuid: ['string'],
  inet: ['string'],
  tsvector: ['string'],
  smallint: ['number'],
  integer: ['number'],
  real: ['number'],
  'double precision': ['number'],
  bigint: ['bigint', 'number', 'string'],
  numeric: ['bigint', 'number', 'string'],
  boolean: ['boolean'],
  'timestamp with time zone': ['date'],
  'timestamp without time zone': ['date'],
  date: ['date', 'string'],
  json: ['json'],
  jsonb: ['json'],
  bytea: ['bytes'],
  ARRAY: ['array'],
};

/** Tables only raw SQL reads and writes (the migrator's, the optional semantic index), so Kysely has no type for them. */
const UNTYPED_TABLES = new Set([
  'schema_migrations',
  'embedding_models',
  'embedding_state',
  'observation_embeddings',
]);

/** Each table of `Database` in db/schema.ts: its columns' kinds and whether they may be null. */
function declaredTables(): Map<string, Map<string, Column>> {
  const file = fileURLToPath(new URL('./schema.ts', import.meta.url));
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  const database = source.statements.find(
    (node): node is ts.InterfaceDeclaration =>
      ts.isInterfaceDeclaration(node) && node.name.text === 'Database',
  );
  if (!database) throw new Error('db/schema.ts has no Database interface');

  const kindsOf = (type: ts.Type, column: Column): void => {
    for (const part of type.isUnion() ? type.types : [type]) {
      // ColumnType<Select, Insert, Update> (and Generated<T>), alone or in a
      // union with null: what a select reads is what the column holds.
      const selected = part.getProperty('__select__');
      if (selected) {
        kindsOf(checker.getTypeOfSymbolAtLocation(selected, database), column);
        continue;
      }
      const flags = part.getFlags();
      if (flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)) column.nullable = true;
      else if (flags & ts.TypeFlags.StringLike) column.kinds.add('string');
      else if (flags & ts.TypeFlags.NumberLike) column.kinds.add('number');
      else if (flags & ts.TypeFlags.BigIntLike) column.kinds.add('bigint');
      else if (flags & ts.TypeFlags.BooleanLike) column.kinds.add('boolean');
      else if (checker.isArrayType(part)) column.kinds.add('array');
      else {
        const name = part.getSymbol()?.getName();
        column.kinds.add(
          name === 'Date' ? 'date' : name === 'Buffer' || name === 'Uint8Array' ? 'bytes' : 'json',
        );
      }
    }
  };

  const tables = new Map<string, Map<string, Column>>();
  const databaseType = checker.getTypeAtLocation(database);
  for (const table of checker.getPropertiesOfType(databaseType)) {
    const columns = new Map<string, Column>();
    const rowType = checker.getTypeOfSymbolAtLocation(table, database);
    for (const property of checker.getPropertiesOfType(rowType)) {
      const column: Column = { kinds: new Set(), nullable: false };
      kindsOf(checker.getTypeOfSymbolAtLocation(property, database), column);
      columns.set(property.getName(), column);
    }
    tables.set(table.getName(), columns);
  }
  return tables;
}

interface DatabaseColumn {
  table_name: string;
  column_name: string;
  data_type: string;
  is_nullable: 'YES' | 'NO';
}

let database: DatabaseHandle;
let actual: DatabaseColumn[];
let declared: Map<string, Map<string, Column>>;
beforeAll(async () => {
  database = await createTestDatabase();
  await migrate(database);
  actual = (
    await sql<DatabaseColumn>`
      select table_name, column_name, data_type, is_nullable
      from information_schema.columns
      where table_schema = current_schema()
      order by table_name, ordinal_position`.execute(database.db)
  ).rows;
  declared = declaredTables();
}, 120_000);
afterAll(() => database.close());

describe('db/schema.ts against the migrated database', () => {
  it('names every table the migrations make, and only those', () => {
    const inDatabase = new Set(actual.map((c) => c.table_name));
    const missing = [...inDatabase].filter((t) => !declared.has(t) && !UNTYPED_TABLES.has(t));
    const extra = [...declared.keys(), ...UNTYPED_TABLES].filter((t) => !inDatabase.has(t));
    expect({ missingFromSchemaTs: missing, notInDatabase: extra }).toEqual({
      missingFromSchemaTs: [],
      notInDatabase: [],
    });
  });

  it('types every column as the database holds it, nullability included', () => {
    const drift: string[] = [];
    for (const [table, columns] of declared) {
      const inDatabase = actual.filter((c) => c.table_name === table);
      for (const name of columns.keys()) {
        if (!inDatabase.some((c) => c.column_name === name)) {
          drift.push(`${table}.${name}: in schema.ts, not in the database`);
        }
      }
      for (const column of inDatabase) {
        const typed = columns.get(column.column_name);
        const where = `${table}.${column.column_name} (${column.data_type}${column.is_nullable === 'YES' ? ', null' : ''})`;
        if (!typed) {
          drift.push(`${where}: not in schema.ts`);
          continue;
        }
        const accepted = ACCEPTED[column.data_type];
        if (!accepted) {
          drift.push(`${where}: a database type this test does not know`);
          continue;
        }
        const wrong = [...typed.kinds].filter((kind) => !accepted.includes(kind));
        if (wrong.length > 0 || typed.kinds.size === 0) {
          drift.push(`${where}: typed as ${[...typed.kinds].join(' | ') || 'nothing'}`);
        }
        if (typed.nullable !== (column.is_nullable === 'YES')) {
          drift.push(`${where}: typed ${typed.nullable ? 'nullable' : 'not null'}`);
        }
      }
    }
    expect(drift).toEqual([]);
  });
});
