import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { EmbeddedPostgres } from './pglite-worker.js';
import { StatementNames } from './prepared.js';

/**
 * Kysely over embedded PGlite (in its worker thread, pglite-worker.ts). PGlite
 * is one Postgres backend with one session, so the driver hands out that
 * single connection to one holder at a time: a transaction owns it from BEGIN
 * to COMMIT and other queries queue behind it. Code must therefore never wait
 * on `db` while holding a transaction.
 */
export class PGliteDialect implements Dialect {
  constructor(private readonly pglite: EmbeddedPostgres) {}

  createDriver(): Driver {
    return new PGliteDriver(this.pglite);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  createAdapter() {
    return new PostgresAdapter();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}

class PGliteConnection implements DatabaseConnection {
  private readonly names = new StatementNames();
  /** A BEGIN not sent yet: it travels with the transaction's first statement. */
  private pendingBegin: string | undefined;

  constructor(private readonly pglite: EmbeddedPostgres) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const first = this.pendingBegin;
    this.pendingBegin = undefined;
    const result = await this.pglite.query<R>(
      compiled.sql,
      [...compiled.parameters],
      this.names.nameOf(compiled.sql),
      first,
    );
    return {
      rows: result.rows,
      ...(result.affectedRows !== undefined
        ? { numAffectedRows: BigInt(result.affectedRows) }
        : {}),
    };
  }

  /** A statement without parameters or rows, over the simple protocol (cheaper than `query`). */
  async run(statement: string): Promise<void> {
    await this.pglite.exec(statement);
  }

  /**
   * Opens a transaction with its first statement, saving the worker a round
   * trip per transaction (one of four or five in a write).
   */
  begin(statement: string): void {
    this.pendingBegin = statement;
  }

  /** Ends the transaction; one that never ran a statement was never opened. */
  async end(statement: 'commit' | 'rollback'): Promise<void> {
    if (this.pendingBegin !== undefined) {
      this.pendingBegin = undefined;
      return;
    }
    await this.run(statement);
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming queries are not supported on the embedded database');
  }
}

class PGliteDriver implements Driver {
  private readonly connection: PGliteConnection;
  /** Resolves when the current holder releases the connection. */
  private queue: Promise<void> = Promise.resolve();
  private release: (() => void) | undefined;

  constructor(private readonly pglite: EmbeddedPostgres) {
    this.connection = new PGliteConnection(pglite);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.queue;
    let release!: () => void;
    this.queue = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.release = release;
    return this.connection;
  }

  async releaseConnection(): Promise<void> {
    const release = this.release;
    this.release = undefined;
    release?.();
  }

  // Transaction control has no parameters: the simple protocol saves PGlite a parse/describe/bind.
  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    (conn as PGliteConnection).begin(`begin${isolation}`);
  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await (conn as PGliteConnection).end('commit');
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await (conn as PGliteConnection).end('rollback');
  }

  async destroy(): Promise<void> {
    await this.queue;
    await this.pglite.close();
  }
}
