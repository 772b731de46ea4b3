import type { DatabaseHandle, RawSession } from './connection.js';

export interface UpkeepOptions {
  /** Changes (graph events) that always call for fresh statistics… */
  minChanges: number;
  /** …or this share of the rows counted at the last ANALYZE, whichever is more (autovacuum's rule). */
  changedFraction: number;
  /** Upkeep waits until no write has come for this long, so it rarely lands inside a burst… */
  idleMs: number;
  /** …unless a burst has changed this many times the threshold: then it gets statistics as it goes. */
  burstFactor: number;
  /** With fewer changes than that, statistics are still refreshed this often while idle. */
  periodMs: number;
  /** How often the conditions are looked at. */
  checkMs: number;
}

const DEFAULTS: UpkeepOptions = {
  minChanges: 500,
  changedFraction: 0.1,
  idleMs: 2_000,
  burstFactor: 3,
  periodMs: 10 * 60_000,
  checkMs: 1_000,
};

/** The graph's tables, whose statistics its plans depend on. */
const GRAPH_TABLES =
  'entities, observations, relations, entity_degrees, entity_type_counts, relation_type_counts, graph_events';

/**
 * Fresh planner statistics after large changes, on both databases. Without
 * them the planner reads a whole account where an index would do (bench/mcp:
 * read_graph 124 ms before ANALYZE, 22 ms after, at 100k entities on PGlite;
 * add_observations right after a 10k bulk load on PostgreSQL 20 ms, 7.7 ms
 * after). Writes report how much they changed; once enough has changed and
 * the server is idle, the tables are analyzed; a long burst of writes is
 * analyzed while it runs, so a bulk load is followed by good plans.
 *
 * - PGlite has no autovacuum: this is all the upkeep it gets. Its passes
 *   apply autovacuum's rules table by table (`tablesDue`): the idle pass
 *   vacuums the tables with enough dead or newly inserted row versions and
 *   analyzes those changed enough, and it also comes periodically while idle.
 *   A whole-database `vacuum analyze` would read a sample of every large
 *   table each time: about 2 s at 1M entities, while the one connection
 *   answers nothing (decision 033). Nor does PGlite checkpoint on its own
 *   (a single-user PostgreSQL has no checkpointer, and none is requested
 *   however much WAL is written): without one, `pg_wal` grows with
 *   everything written until the server stops (7.6 GB a quarter of the way
 *   into a 1M-entity import). Each pass ends with CHECKPOINT, so the WAL is
 *   recycled as it goes.
 * - PostgreSQL's autovacuum does the rest on its own schedule, up to a minute
 *   or more after a burst: this only analyzes the graph's tables after large
 *   changes, skipping any another session is already analyzing or vacuuming
 *   (several nodes may ask at once).
 */
export class DatabaseUpkeep {
  private readonly options: UpkeepOptions;
  private changed = 0;
  /** The graph's rows as the statistics counted them (read at the first change after start). */
  private rowsAtLastAnalyze: number | undefined;
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
    if (this.timer) return;
    this.timer = setInterval(() => void this.check(), this.options.checkMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The pass due now: none, statistics inside a burst, or the idle pass. */
  private due(now: number): 'idle' | 'burst' | undefined {
    const embedded = this.database.kind === 'pglite';
    const threshold = Math.max(
      this.options.minChanges,
      this.options.changedFraction * (this.rowsAtLastAnalyze ?? 0),
    );
    if (now - this.lastWrite >= this.options.idleMs) {
      const enough =
        this.changed >= threshold || (embedded && now - this.lastAnalyze >= this.options.periodMs);
      return enough ? 'idle' : undefined;
    }
    return this.changed >= this.options.burstFactor * threshold ? 'burst' : undefined;
  }

  /** The statements of a pass: on PostgreSQL the graph's statistics, on PGlite what autovacuum would do. */
  private async statements(session: RawSession, pass: 'idle' | 'burst'): Promise<string[]> {
    if (this.database.kind !== 'pglite') return [`analyze (skip_locked) ${GRAPH_TABLES}`];
    const due = await tablesDue(session);
    // Each its own statement: VACUUM cannot run in the implicit transaction of a multi-statement string.
    const vacuum = pass === 'idle' ? due.vacuum : [];
    const analyze = due.analyze.filter((table) => !vacuum.includes(table));
    return [
      ...(vacuum.length > 0 ? [`vacuum (analyze) ${vacuum.join(', ')}`] : []),
      ...(analyze.length > 0 ? [`analyze ${analyze.join(', ')}`] : []),
      'checkpoint',
    ];
  }

  private async check(): Promise<void> {
    if (this.running || this.changed === 0) return;
    this.running = true;
    try {
      // A restarted server counts from the statistics already there: a graph of
      // 1M entities needs 10% of it changed, not the first 500 changes.
      this.rowsAtLastAnalyze ??= await this.database.withSession(rowsCounted);
      const pass = this.due(Date.now());
      if (!pass) return;
      const changes = this.changed;
      this.rowsAtLastAnalyze = await this.database.withSession(async (session) => {
        for (const statement of await this.statements(session, pass)) await session.exec(statement);
        return rowsCounted(session);
      });
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

/**
 * Planner statistics for a server that starts: every table after a migration
 * (a new expression index has none until its table is analyzed), otherwise
 * only the tables never analyzed, or whose size moved past autovacuum's 10%
 * from the pages their statistics counted — a server stopped in the middle of
 * a burst, before its idle pass. (PGlite starts with its change counters at
 * zero, so the pages are what a restart can go by.) The rest kept their
 * statistics in the database; analyzing them again at every start read a
 * sample of each large table: 1–2 s at 1M entities on PGlite, and the
 * embedded database's memory grown by that pass for good (decision 036).
 */
export async function analyzeAtStart(session: RawSession, migrated: boolean): Promise<void> {
  if (migrated) {
    await session.exec('analyze');
    return;
  }
  const stale = await session.query<{ name: string }>(
    `select quote_ident(c.relname) as name
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind = 'r'
        and (c.reltuples < 0
             or abs(pg_relation_size(c.oid) / current_setting('block_size')::int - c.relpages)
                > 0.1 * c.relpages)`,
  );
  if (stale.length > 0) await session.exec(`analyze ${stale.map((row) => row.name).join(', ')}`);
}

/** The graph's rows as its tables' statistics last counted them. */
async function rowsCounted(session: RawSession): Promise<number> {
  const [row] = await session.query<{ rows: number }>(
    `select coalesce(sum(greatest(reltuples, 0)), 0)::float8 as rows from pg_class
      where oid in ('entities'::regclass, 'observations'::regclass, 'relations'::regclass)`,
  );
  return row?.rows ?? 0;
}

/**
 * Autovacuum's rules at its default settings, table by table: vacuum past 50
 * dead row versions plus 20% of the table, or 1,000 inserted ones plus 20%
 * (so pages of new rows are marked all-visible); analyze past 50 changed rows
 * plus 10%. The statistics are flushed first, so this pass's own writes count.
 */
async function tablesDue(session: RawSession): Promise<{ vacuum: string[]; analyze: string[] }> {
  await session.query('select pg_stat_force_next_flush()');
  const tables = await session.query<{ name: string; vacuum: boolean; analyze: boolean }>(
    `select quote_ident(s.relname) as name,
            s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0)
              or s.n_ins_since_vacuum > 1000 + 0.2 * greatest(c.reltuples, 0) as vacuum,
            s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0) as analyze
       from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = 'public'`,
  );
  return {
    vacuum: tables.filter((table) => table.vacuum).map((table) => table.name),
    analyze: tables.filter((table) => table.analyze).map((table) => table.name),
  };
}
