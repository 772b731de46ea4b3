import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from './schema.js';

/** The database handle (connection.ts's `Db`), named here so this file imports nothing above it. */
type Db = Kysely<Database>;

/**
 * A transaction in fewer round trips (decision 031). Kysely sends BEGIN, each
 * statement and COMMIT one at a time, each after the answer to the one before;
 * on PostgreSQL every answer then waits for the server's event loop before the
 * next statement leaves, and an account's graph writes hold its lock across
 * all of them (decision 030). Both databases' connections therefore send a
 * transaction's BEGIN with its first statement, and these two helpers let the
 * write path send a statement without waiting for its answer, and a last
 * statement with its COMMIT. PostgreSQL runs the statements of one connection
 * in the order they arrive, so nothing changes but the waiting.
 */

const THEN_COMMIT = '/* then commit */';

/**
 * Marks a transaction's last statement: COMMIT travels with it. When the
 * statement fails, the transaction is rolled back as usual; when it succeeds,
 * the transaction has committed by the time its answer arrives, so nothing
 * after it may expect to roll it back.
 */
export const thenCommit = sql.raw(THEN_COMMIT);

/** Whether a statement's text carries `thenCommit`. */
export function endsTransaction(text: string): boolean {
  return text.includes(THEN_COMMIT);
}

/**
 * Sends a statement of the transaction `trx` without waiting for its answer:
 * the transaction's next statement leaves at once behind it and runs as soon
 * as this one is done. Await `rows` before the transaction ends, and before
 * acting on anything the statement decides (an error it raises surfaces
 * there, and makes the statements behind it fail as well).
 */
export async function sendAhead<R>(trx: Db, query: RawBuilder<R>): Promise<{ rows: Promise<R[]> }> {
  const compiled = query.compile(trx);
  return trx.getExecutor().provideConnection(async (connection) => {
    const rows = connection.executeQuery<R>(compiled).then((result) => result.rows);
    // Handled by whoever awaits it; a transaction that failed before then never does.
    rows.catch(() => undefined);
    return { rows };
  });
}
