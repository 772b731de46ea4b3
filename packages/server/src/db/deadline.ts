import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import { endsTransaction } from './pipeline.js';

/** What PostgreSQL raises when statement_timeout cuts a statement; the error handler answers 503. */
export const QUERY_CANCELED = '57014';

function timedOut(limitMs: number): Error {
  return Object.assign(new Error(`transaction exceeded the ${limitMs} ms statement timeout`), {
    code: QUERY_CANCELED,
  });
}

/** A connection that knows when its transaction began. */
class DeadlineConnection implements DatabaseConnection {
  transactionStart: number | undefined;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly limitMs: number,
  ) {}

  /** Throws once the open transaction has run past the limit: it will be rolled back. */
  assertInTime(): void {
    if (
      this.transactionStart !== undefined &&
      performance.now() - this.transactionStart > this.limitMs
    ) {
      throw timedOut(this.limitMs);
    }
  }

  executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    this.assertInTime();
    // Its COMMIT travels with it (pipeline.ts): checked here, not again at commit.
    if (endsTransaction(compiled.sql)) this.transactionStart = undefined;
    return this.inner.executeQuery<R>(compiled);
  }

  streamQuery<R>(
    compiled: CompiledQuery,
    chunkSize?: number,
  ): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(compiled, chunkSize);
  }
}

/**
 * Wraps a driver so that a transaction running longer than `limitMs` is
 * rolled back: checked before each of its statements and before COMMIT (or
 * the last statement a COMMIT travels with), on both databases. PostgreSQL also cuts any single statement at the limit
 * (statement_timeout on the pool); PGlite's statement, in its worker thread,
 * cannot be interrupted, so there a long statement finishes and its transaction is
 * then refused — nothing half-written either way (docs/security.md).
 */
class DeadlineDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly limitMs: number,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new DeadlineConnection(await this.inner.acquireConnection(), this.limitMs);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    const conn = connection as DeadlineConnection;
    await this.inner.beginTransaction(conn.inner, settings);
    conn.transactionStart = performance.now();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const conn = connection as DeadlineConnection;
    conn.assertInTime();
    await this.inner.commitTransaction(conn.inner);
    conn.transactionStart = undefined;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const conn = connection as DeadlineConnection;
    conn.transactionStart = undefined;
    await this.inner.rollbackTransaction(conn.inner);
  }

  async savepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    await this.inner.savepoint?.((connection as DeadlineConnection).inner, name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    await this.inner.rollbackToSavepoint?.((connection as DeadlineConnection).inner, name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    await this.inner.releaseSavepoint?.((connection as DeadlineConnection).inner, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection((connection as DeadlineConnection).inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** The dialect with transactions bounded to `limitMs`. */
export function withDeadlines(dialect: Dialect, limitMs: number): Dialect {
  return {
    createDriver: () => new DeadlineDriver(dialect.createDriver(), limitMs),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
