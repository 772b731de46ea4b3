import { planSelfService, type Config } from './config.js';
import { openDatabase, type DatabaseHandle } from './db/connection.js';
import { migrate } from './db/migrate.js';
import { DatabaseUpkeep } from './db/upkeep.js';
import { AccountPurge, type PurgeOptions } from './features/accounts/accounts.service.js';
import type { AnalyticsDeps } from './features/analytics/analytics.service.js';
import { authenticateSession, sessionStatus, type AuthDeps } from './features/auth/auth.service.js';
import type { BillingDeps } from './features/billing/billing.service.js';
import { billingProviderFor } from './features/billing/providers.js';
import { EmbeddingIndexer, type IndexerOptions } from './features/embeddings/embedding-indexer.js';
import {
  embeddingsFromConfig,
  type EmbeddingsDeps,
} from './features/embeddings/embeddings.service.js';
import { Entitlements } from './features/entitlements/entitlements.service.js';
import { ChangeLogCompactor } from './features/graph/change-log.service.js';
import type { GraphDeps } from './features/graph/graph.service.js';
import type { RecallDeps } from './features/recall/recall.service.js';
import { authThrottles } from './features/auth/throttle.js';
import { KeyUsageTracker } from './features/keys/key-usage.js';
import {
  authenticateApiKey,
  instanceSecret,
  keyStatus,
  type KeysDeps,
} from './features/keys/keys.service.js';
import { UsageMeter } from './features/usage/usage.service.js';
import type { AuthContext } from './lib/auth-context.js';
import { CredentialCache } from './lib/credential-cache.js';
import { CredentialWatch } from './realtime/credential-watch.js';
import { LocalEventBus, type EventBus } from './realtime/event-bus.js';
import { RedisEventBus } from './realtime/redis-bus.js';

/**
 * The services every adapter (HTTP, MCP over stdio, the CLI) runs on: one
 * migrated database, the change bus, and the dependencies each feature needs.
 */
export interface Runtime {
  database: DatabaseHandle;
  now: () => Date;
  bus: EventBus;
  graph: GraphDeps;
  /** Ranked retrieval of observations (recall, context). */
  recall: RecallDeps;
  keys: KeysDeps;
  auth: AuthDeps;
  usage: UsageMeter;
  analytics: AnalyticsDeps;
  /** Plans, payments and entitlements (the `none` or `stripe` provider, from config). */
  billing: BillingDeps;
  /** Ends sockets and MCP sessions when the credential they were opened with stops working. */
  credentials: CredentialWatch;
  /** Keeps the embedded database's statistics fresh (PGlite has no autovacuum). */
  upkeep: DatabaseUpkeep;
  /** Removes the rows of deleted accounts in batches; resumes an unfinished purge at start. */
  accountPurge: AccountPurge;
  /** Removes change-log events past their retention window. */
  changeLog: ChangeLogCompactor;
  /** The semantic index (recall's semantic arm, the dashboard's line); its `embedder` null without EMBEDDINGS_URL. */
  embeddings: EmbeddingsDeps;
  /** Embeds observations in the background; only with EMBEDDINGS_URL. */
  embeddingIndexer: EmbeddingIndexer | undefined;
  /** Who a bearer credential (session token or API key) acts as, if anyone. */
  authenticate(credential: string): Promise<AuthContext | undefined>;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** An already-open database, left open on close (tests share one per file). */
  database?: DatabaseHandle | undefined;
  now?: (() => Date) | undefined;
  /** Operator commands (import, export) may run long transactions: no statement timeout. */
  unboundedStatements?: boolean | undefined;
  onError?: ((error: unknown, message: string) => void) | undefined;
  /** The account purge's batch size and schedule (tests make batches small and stop it midway). */
  accountPurge?: Partial<PurgeOptions> | undefined;
  /** The embedding indexer's schedule and batch sizes (tests run it by hand). */
  embeddingIndexer?: Partial<IndexerOptions> | undefined;
}

export async function createRuntime(
  config: Config,
  options: RuntimeOptions = {},
): Promise<Runtime> {
  const now = options.now ?? (() => new Date());
  const database =
    options.database ??
    (await openDatabase({
      databaseUrl: config.DATABASE_URL,
      dataDir: config.DATA_DIR,
      statementTimeoutMs: options.unboundedStatements ? undefined : config.STATEMENT_TIMEOUT_MS,
      sharedBuffersMb: config.PGLITE_SHARED_BUFFERS_MB,
    }));
  await migrate(database);
  // PGlite never analyzes on its own: without statistics the planner reads a
  // whole account where an index would do. Refresh them at every start.
  await database.withSession((session) => session.exec('analyze'));

  const bus: EventBus = config.REDIS_URL
    ? await RedisEventBus.connect(config.REDIS_URL, (error) =>
        options.onError?.(error, 'Redis event bus error'),
      )
    : new LocalEventBus();
  const verified = new CredentialCache();
  // Forgotten here at once, and on every node (this one too) when the bus delivers it.
  bus.onCredentialsChanged((changes) => verified.forget(changes));
  const credentialsChanged: KeysDeps['credentialsChanged'] = (changes) => {
    verified.forget(changes);
    bus.credentialsChanged(changes);
  };
  // The one reader of plans: billing tells it of every change it makes.
  const entitlements = new Entitlements(database.db, now);
  const usage = new KeyUsageTracker(database.db, options.onError);
  usage.start(5_000);
  const keys: KeysDeps = {
    db: database.db,
    now,
    usage,
    secret: await instanceSecret(database.db, config.SECRET_KEY),
    credentialsChanged,
    verified,
    entitlements,
  };
  const upkeep = new DatabaseUpkeep(database, {}, (error) =>
    options.onError?.(error, 'database upkeep failed'),
  );
  upkeep.start();
  const meter = new UsageMeter(database.db, now, entitlements, options.onError);
  meter.start(5_000);
  const graph: GraphDeps = {
    db: database.db,
    now,
    planOf: (db, accountId) => entitlements.planOf(accountId, now(), db),
    bounds: { maxRows: config.READ_MAX_ROWS, maxBytes: config.READ_MAX_BYTES },
    publish: (events) => {
      upkeep.noteChanges(events.length);
      bus.publish(events);
    },
  };
  const embeddings = embeddingsFromConfig(database.db, config, options.onError);
  // Only with an endpoint: without one nothing of the semantic index runs or writes.
  const embeddingIndexer = embeddings.embedder
    ? new EmbeddingIndexer(
        { db: database.db, embedder: embeddings.embedder, entitlements },
        options.embeddingIndexer,
        (error) => options.onError?.(error, 'embedding observations failed; retried later'),
      )
    : undefined;
  embeddingIndexer?.start();
  const recall: RecallDeps = { db: database.db, embeddings };
  const changeLog = new ChangeLogCompactor(
    database.db,
    entitlements,
    now,
    { retentionDays: config.CHANGE_LOG_RETENTION_DAYS, intervalMs: 10 * 60_000 },
    (error) => options.onError?.(error, 'change log compaction failed'),
  );
  changeLog.start();
  const analytics: AnalyticsDeps = {
    db: database.db,
    now,
    usage: meter,
    entitlements,
    embeddings,
  };
  const billing: BillingDeps = {
    db: database.db,
    now,
    provider: billingProviderFor(config),
    planSelfService: planSelfService(config),
    publicOrigin: config.PUBLIC_URL ? new URL(config.PUBLIC_URL).origin : undefined,
    onError: options.onError,
    planChanged: (accountId) => entitlements.forget(accountId),
  };
  const accountPurge = new AccountPurge(
    database.db,
    {
      batchRows: 5_000,
      intervalMs: 60_000,
      ...options.accountPurge,
      afterBatch: async (rows) => {
        // PGlite has no autovacuum: a purge is a large change like any other.
        upkeep.noteChanges(rows);
        await options.accountPurge?.afterBatch?.(rows);
      },
    },
    (error) => options.onError?.(error, 'account purge failed; retried later'),
  );
  accountPurge.start();
  const auth: AuthDeps = {
    db: database.db,
    sessionTtlDays: config.SESSION_TTL_DAYS,
    now,
    keys,
    credentialsChanged,
    accounts: { db: database.db, billing, credentialsChanged, purge: accountPurge },
    throttles: authThrottles({
      loginMaxFailures: config.LOGIN_MAX_FAILURES,
      loginLockMinutes: config.LOGIN_LOCK_MINUTES,
      passwordAttempts: config.PASSWORD_CHANGE_ATTEMPTS,
      registerConflictsPerHour: config.REGISTER_CONFLICTS_PER_HOUR,
    }),
  };
  const credentials = new CredentialWatch(
    bus,
    (credential) =>
      credential.kind === 'session'
        ? sessionStatus(auth, credential.id)
        : keyStatus(keys, credential.id),
    now,
    (error) => options.onError?.(error, 'credential check failed'),
  );

  return {
    database,
    now,
    bus,
    graph,
    recall,
    keys,
    auth,
    usage: meter,
    analytics,
    billing,
    credentials,
    upkeep,
    accountPurge,
    changeLog,
    embeddings,
    embeddingIndexer,
    async authenticate(credential) {
      return (
        (await authenticateSession(auth, credential)) ??
        (await authenticateApiKey(keys, credential))
      );
    },
    async close() {
      await embeddingIndexer?.stop();
      await accountPurge.stop();
      upkeep.stop();
      await changeLog.stop();
      credentials.close();
      await usage.stop();
      await meter.stop();
      await bus.close();
      if (!options.database) await database.close();
    },
  };
}
