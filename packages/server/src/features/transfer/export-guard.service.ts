import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/connection.js';
import { AppError, tooManyRequests } from '../../lib/errors.js';
import * as leases from './export-leases.repository.js';

/**
 * One export per account at a time (docs/security.md). An export streams
 * the whole graph for as long as its client reads, so a second one of the
 * same account is refused rather than queued: 429 with Retry-After.
 *
 * Each node keeps the accounts it is exporting in memory (a second request
 * to the same node costs no statement), and every export also holds a lease
 * row in the database, which all nodes on one PostgreSQL share. The lease is
 * renewed while the export runs and deleted when it ends; one left behind
 * by a node that died expires after LEASE_SECONDS.
 */

/** How long a lease lasts unless renewed; renewed every third of it. */
const LEASE_SECONDS = 30;
/** What a refused export is told to wait. */
const RETRY_AFTER_SECONDS = 10;

function busy(): AppError {
  return tooManyRequests(
    'An export of this account is already running; one runs at a time. Try again when it has finished.',
    RETRY_AFTER_SECONDS,
  );
}

export class ExportGuard {
  private readonly running = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly onError?: (error: unknown) => void,
  ) {}

  /**
   * Admits an export of the account, or throws 429 when one is running on
   * any node. Returns what ends it (once; later calls do nothing).
   */
  async begin(accountId: string): Promise<() => Promise<void>> {
    if (this.running.has(accountId)) throw busy();
    this.running.add(accountId);
    const holder = randomUUID();
    try {
      if (!(await leases.takeLease(this.db, accountId, holder, LEASE_SECONDS))) throw busy();
    } catch (error) {
      this.running.delete(accountId);
      throw error;
    }
    const renewal = setInterval(
      () => {
        leases
          .renewLease(this.db, accountId, holder, LEASE_SECONDS)
          .catch((error: unknown) => this.onError?.(error));
      },
      (LEASE_SECONDS * 1000) / 3,
    );
    renewal.unref();
    let ended = false;
    return async () => {
      if (ended) return;
      ended = true;
      clearInterval(renewal);
      this.running.delete(accountId);
      // Should this fail, the lease expires by itself.
      await leases
        .releaseLease(this.db, accountId, holder)
        .catch((error: unknown) => this.onError?.(error));
    };
  }
}
