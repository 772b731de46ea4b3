import type { Db } from '../../db/connection.js';
import { Scheduler } from '../../follower/scheduler.js';
import type { BillingService } from '../billing/index.js';
import type { CredentialChange } from '../feature.js';
import * as repo from './accounts.repository.js';

/**
 * Deleting a person and the accounts they alone own (DELETE /auth/me,
 * docs/security.md "Account deletion"). Two steps, so that nothing is left
 * behind even if the server stops midway:
 *
 * 1. `deleteUser`: the subscription is cancelled at the provider, then one
 *    short transaction deletes the user (the email is free at once), every
 *    session and key that reaches those accounts, and marks the accounts
 *    deleted; what those credentials opened (sockets, MCP sessions) closes.
 * 2. `AccountPurge`: removes every row of a marked account, table by table,
 *    in bounded batches (one statement each), then the account row. It runs
 *    after each deletion, at every start and periodically, so a purge cut
 *    short by a crash is finished by the next run, on any node.
 */

export interface AccountsDeps {
  db: Db;
  billing: Pick<BillingService, 'cancelForDeletion' | 'planChanged'>;
  /** Tells every node that these credentials ended (their sockets and MCP sessions close). */
  credentialsChanged: (changes: CredentialChange[]) => void;
  /** Starts the purge of the accounts just marked. */
  purge: Pick<AccountPurge, 'kick'>;
}

/**
 * Deletes the user and the accounts they alone own. Their subscriptions are
 * cancelled at the payment provider first (at once, not at the period end):
 * if the provider refuses or cannot be reached, that error is thrown and
 * nothing is deleted. `throttles` are the person's failed-attempt records.
 */
export async function deleteUser(
  deps: AccountsDeps,
  userId: string,
  throttles: { scope: 'login' | 'password'; subject: string }[],
): Promise<void> {
  for (const accountId of await repo.soleOwnedAccounts(deps.db, userId)) {
    await deps.billing.cancelForDeletion(accountId);
  }
  const marked = await repo.markUserDeleted(deps.db, userId, throttles);
  deps.credentialsChanged([
    ...marked.sessionIds.map((id) => ({ kind: 'session' as const, id })),
    ...marked.keyIds.map((id) => ({ kind: 'api_key' as const, id })),
  ]);
  for (const accountId of marked.accountIds) deps.billing.planChanged?.(accountId);
  if (marked.accountIds.length > 0) deps.purge.kick();
}

export interface PurgeOptions {
  /** Rows one statement deletes at most: each is a short transaction beside live traffic. */
  batchRows: number;
  /** How often marked accounts are looked for (a purge another node left unfinished). */
  intervalMs: number;
  /** Called after each batch with the rows it removed (database upkeep; tests stop the purge here). */
  afterBatch?: ((rows: number) => void | Promise<void>) | undefined;
}

/**
 * Removes the rows of deleted spaces and accounts in the background. Runs are never
 * concurrent on one node (a request during a run is queued as one more run);
 * several nodes may purge the same account at once — each batch deletes only
 * rows still there, and the last step happens once.
 */
export class AccountPurge {
  /** Its schedule (follower/scheduler.ts): at start, every `intervalMs`, and on `kick`. */
  private readonly schedule: Scheduler<{ more: boolean }>;

  constructor(
    private readonly db: Db,
    private readonly options: PurgeOptions,
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.schedule = new Scheduler<{ more: boolean }>(
      async () => {
        await this.runAll();
        return { more: false };
      },
      { more: false },
      { pollMs: options.intervalMs, firstRunMs: 0 },
    );
  }

  /** Finishes any purge left over (a crash midway), then looks again every `intervalMs`. */
  start(): void {
    this.schedule.start();
  }

  /** Purges every marked space and account now (or right after the run under way). */
  kick(): void {
    this.schedule.kick();
  }

  /** Resolves once no run is under way or queued (tests, shutdown). */
  idle(): Promise<void> {
    return this.schedule.idle();
  }

  async stop(): Promise<void> {
    await this.schedule.close();
    await this.idle();
  }

  private get stopped(): boolean {
    return this.schedule.closed;
  }

  private async runAll(): Promise<void> {
    try {
      const spaces = await repo.spacesBeingDeleted(this.db);
      const accounts = await repo.accountsBeingDeleted(this.db);
      if (spaces.length === 0 && accounts.length === 0) return;
      const spaceTables = await repo.ownedTables(this.db, 'space_id');
      for (const spaceId of spaces) {
        if (!(await this.purgeRows(spaceTables, 'space_id', spaceId))) return;
        await repo.finishSpacePurge(this.db, spaceId, spaceTables);
      }
      if (accounts.length === 0) return;
      const tables = await repo.ownedTables(this.db, 'account_id');
      for (const accountId of accounts) {
        // Its spaces' graphs first, then the account's own rows (its spaces' among them).
        if (!(await this.purgeRows(spaceTables, 'account_spaces', accountId))) return;
        if (!(await this.purgeRows(tables, 'account_id', accountId))) return;
        await repo.finishPurge(this.db, accountId, tables);
      }
    } catch (error) {
      // Left marked: the next run (a deletion, the timer, a restart) takes it up again.
      this.onError(error);
    }
  }

  /** One owner's rows, table by table, in batches; false when stopped midway. */
  private async purgeRows(tables: string[], of: repo.PurgeOf, ownerId: string): Promise<boolean> {
    const { batchRows, afterBatch } = this.options;
    for (const table of tables) {
      for (;;) {
        if (this.stopped) return false;
        const rows = await repo.purgeBatch(this.db, table, of, ownerId, batchRows);
        if (rows > 0) await afterBatch?.(rows);
        if (rows < batchRows) break;
      }
    }
    return !this.stopped;
  }
}
