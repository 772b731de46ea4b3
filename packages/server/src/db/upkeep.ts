import type { DatabaseHandle } from './connection.js';

export interface UpkeepOptions {
  /** Changes (graph events) that always call for fresh statistics… */
  minChanges: number;
  /** …or this share of the rows counted at the last ANALYZE, whichever is more (autovacuum's rule). */
  changedFraction: number;
  /** ANALYZE waits until no write has come for this long, so it never lands inside a burst. */
  idleMs: number;
  /** With fewer changes than that, statistics are still refreshed this often while idle. */
  periodMs: number;
  /** How often the conditions are looked at. */
  checkMs: number;
}

const DEFAULTS: UpkeepOptions = {
  minChanges: 500,
  changedFraction: 0.1,
  idleMs: 2_000,
  periodMs: 10 * 60_000,
  checkMs: 1_000,
};

/**
 * The maintenance a PostgreSQL server does by itself (autovacuum's ANALYZE),
 * done for the embedded PGlite, which has none: without fresh statistics the
 * planner reads a whole account where an index would do (bench/mcp measured
 * read_graph at 124 ms before ANALYZE, 22 ms after, at 100k entities). Writes
 * report how much they changed; once enough has changed and the server is
 * idle, the tables are analyzed. On PostgreSQL this does nothing.
 */
export class EmbeddedUpkeep {
  private readonly options: UpkeepOptions;
  private changed = 0;
  private rowsAtLastAnalyze = 0;
  private lastWrite = 0;
  private lastAnalyze = Date.now();
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  /** How many times the tables were analyzed since start (diagnostics and tests). */
  analyzed = 0;

  constructor(
    private readonly database: DatabaseHandle,
    options: Partial<UpkeepOptions> = {},
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** Counts changes a committed write made (one per change-log event). */
  noteChanges(count: number): void {
    this.changed += count;
    this.lastWrite = Date.now();
  }

  start(): void {
    if (this.database.kind !== 'pglite' || this.timer) return;
    this.timer = setInterval(() => void this.check(), this.options.checkMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private due(now: number): boolean {
    if (this.changed === 0 || now - this.lastWrite < this.options.idleMs) return false;
    const threshold = Math.max(
      this.options.minChanges,
      this.options.changedFraction * this.rowsAtLastAnalyze,
    );
    return this.changed >= threshold || now - this.lastAnalyze >= this.options.periodMs;
  }

  private async check(): Promise<void> {
    const now = Date.now();
    if (this.running || !this.due(now)) return;
    this.running = true;
    const changes = this.changed;
    try {
      const [row] = await this.database.withSession(async (session) => {
        await session.exec('analyze');
        return session.query<{ rows: number }>(
          `select coalesce(sum(reltuples), 0)::float8 as rows from pg_class
            where relname in ('entities', 'observations', 'relations')`,
        );
      });
      this.rowsAtLastAnalyze = row?.rows ?? 0;
      this.changed -= changes;
      this.lastAnalyze = Date.now();
      this.analyzed += 1;
    } catch (error) {
      this.onError(error);
    } finally {
      this.running = false;
    }
  }
}
