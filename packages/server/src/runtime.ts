import { performance } from 'node:perf_hooks';
import type { Config } from './config.js';
import { openDatabase, type DatabaseHandle, type DatabaseOptions } from './db/connection.js';
import { migrate } from './db/migrate.js';
import { analyzeAtStart, DatabaseUpkeep } from './db/upkeep.js';
import { accountsFeature } from './features/accounts/index.js';
import { analyticsFeature } from './features/analytics/index.js';
import { authFeature } from './features/auth/index.js';
import { backupFeature } from './features/backup/index.js';
import { billingFeature } from './features/billing/index.js';
import { connectFeature } from './features/connect/index.js';
import { duplicatesFeature } from './features/duplicates/index.js';
import { embeddingsFeature } from './features/embeddings/index.js';
import { entitlementsFeature } from './features/entitlements/index.js';
import type { FeatureContext } from './features/feature.js';
import { graphFeature } from './features/graph/index.js';
import { historyFeature } from './features/history/index.js';
import { keysFeature } from './features/keys/index.js';
import { membersFeature } from './features/members/index.js';
import { oauthFeature } from './features/oauth/index.js';
import { readsFeature } from './features/reads/index.js';
import { recallFeature } from './features/recall/index.js';
import { spacesFeature } from './features/spaces/index.js';
import { transferFeature } from './features/transfer/index.js';
import { usageFeature } from './features/usage/index.js';
import { webhooksFeature } from './features/webhooks/index.js';
import type { AuthContext } from './lib/auth-context.js';
import { CredentialCache } from './lib/credential-cache.js';
import { CredentialWatch } from './realtime/credential-watch.js';
import { LocalEventBus, type EventBus } from './realtime/event-bus.js';

/**
 * Every feature, each created after the features it needs. A new feature is
 * a folder under features/ with an index.ts, and one line here.
 */
export const FEATURES = [
  entitlementsFeature,
  usageFeature,
  keysFeature,
  graphFeature,
  historyFeature,
  readsFeature,
  embeddingsFeature,
  recallFeature,
  billingFeature,
  accountsFeature,
  spacesFeature,
  oauthFeature,
  membersFeature,
  authFeature,
  webhooksFeature,
  duplicatesFeature,
  analyticsFeature,
  transferFeature,
  backupFeature,
  connectFeature,
] as const;

type AnyFeature = (typeof FEATURES)[number];

/** Each feature's services, by the feature's name. */
export type Services = {
  [F in AnyFeature as F['name']]: Awaited<ReturnType<F['create']>>;
};

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (
  i: infer I,
) => void
  ? I
  : never;
// Checked when compiled: every feature's needs are services of the list, of the right type.
true satisfies Services extends UnionToIntersection<Parameters<AnyFeature['create']>[1]>
  ? true
  : false;

/**
 * The services every adapter (HTTP, MCP over stdio, the CLI) runs on: one
 * migrated database, the change bus, and every feature's services.
 */
export interface Runtime extends Services {
  database: DatabaseHandle;
  now: () => Date;
  bus: EventBus;
  /** Ends sockets and MCP sessions when the credential they were opened with stops working. */
  credentials: CredentialWatch;
  /** Keeps the embedded database's statistics fresh (PGlite has no autovacuum). */
  upkeep: DatabaseUpkeep;
  /**
   * Who a bearer credential (session token, API key or OAuth access token)
   * acts as, if anyone, in the account the request names (`account`: its id,
   * X-Engram-Account) or else its own: 404 for an account the person does
   * not belong to, 403 for a key or app naming another account.
   */
  authenticate(credential: string, account?: string): Promise<AuthContext | undefined>;
  /** An adapter began serving a request (`FeatureContext.lastRequestAt`). */
  noteRequest(): void;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** An already-open database, left open on close (tests share one per file). */
  database?: DatabaseHandle | undefined;
  now?: (() => Date) | undefined;
  /** Operator commands (import, export) may run long transactions: no statement timeout. */
  unboundedStatements?: boolean | undefined;
  onError?: ((error: unknown, message: string) => void) | undefined;
  onWarn?: ((fields: Record<string, unknown>, message: string) => void) | undefined;
  /** The account purge's batch size and schedule (tests make batches small and stop it midway). */
  accountPurge?: Parameters<typeof accountsFeature.create>[2];
  /** The embedding indexer's schedule and batch sizes (tests run it by hand). */
  embeddingIndexer?: Parameters<typeof embeddingsFeature.create>[2];
  /** The OAuth server's extra trust for client metadata (tests serve it with their own certificate). */
  oauth?: Parameters<typeof oauthFeature.create>[2];
  /** The webhook dispatcher's schedule and retries (tests run it by hand, with short delays). */
  webhooks?: Parameters<typeof webhooksFeature.create>[2];
}

/** The database the configuration names, opened as every command opens it. */
export function databaseOptionsOf(config: Config): DatabaseOptions {
  return {
    databaseUrl: config.DATABASE_URL,
    poolSize: config.DATABASE_POOL_SIZE,
    dataDir: config.DATA_DIR,
    sharedBuffersMb: config.PGLITE_SHARED_BUFFERS_MB,
    pgliteCompiler: config.PGLITE_COMPILER,
  };
}

export async function createRuntime(
  config: Config,
  options: RuntimeOptions = {},
): Promise<Runtime> {
  const now = options.now ?? (() => new Date());
  const onError = options.onError ?? (() => {});
  const database =
    options.database ??
    (await openDatabase({
      ...databaseOptionsOf(config),
      statementTimeoutMs: options.unboundedStatements ? undefined : config.STATEMENT_TIMEOUT_MS,
    }));
  const migrated = await migrate(database);
  // PGlite never analyzes on its own: without statistics the planner reads a
  // whole account where an index would do.
  await database.withSession((session) => analyzeAtStart(session, migrated.length > 0));

  // Loaded only with Redis configured (it brings ioredis).
  const bus: EventBus = config.REDIS_URL
    ? await (
        await import('./realtime/redis-bus.js')
      ).RedisEventBus.connect(config.REDIS_URL, (error) => onError(error, 'Redis event bus error'))
    : new LocalEventBus();
  const verified = new CredentialCache();
  // Forgotten here at once, and on every node (this one too) when the bus delivers it.
  bus.onCredentialsChanged((changes) => verified.forget(changes));
  const upkeep = new DatabaseUpkeep(database, {}, (error) =>
    onError(error, 'database upkeep failed'),
  );
  upkeep.start();

  const stops: (() => void | Promise<void>)[] = [];
  const published: (() => void)[] = [];
  let lastRequestAt = -Infinity;
  const context: FeatureContext = {
    config,
    db: database.db,
    database,
    now,
    publish: (events) => {
      upkeep.noteChanges(events.length);
      bus.publish(events);
      for (const listener of published) listener();
    },
    onPublished: (listener) => published.push(listener),
    credentialsChanged: (changes) => {
      verified.forget(changes);
      bus.credentialsChanged(changes);
    },
    verified,
    noteChanges: (rows) => upkeep.noteChanges(rows),
    lastRequestAt: () => lastRequestAt,
    onError,
    onWarn: options.onWarn ?? (() => {}),
    onClose: (stop) => stops.unshift(stop),
  };
  const tuning: Record<string, unknown> = {
    accounts: options.accountPurge,
    embeddings: options.embeddingIndexer,
    oauth: options.oauth,
    webhooks: options.webhooks,
  };
  const services = {} as Record<string, unknown>;
  // A need not created yet is a mistake in the list's order: said at start, not as a later undefined.
  const created = new Proxy(services, {
    get(target, name: string) {
      if (!(name in target))
        throw new Error(`"${name}" is needed before it is created: see FEATURES`);
      return target[name];
    },
  });
  for (const feature of FEATURES) {
    const create = feature.create as (...args: unknown[]) => unknown;
    services[feature.name] = await create(context, created, tuning[feature.name]);
  }
  const { auth, keys, oauth, members } = services as Services;

  const credentials = new CredentialWatch(
    bus,
    (credential) =>
      credential.kind === 'session'
        ? auth.sessionStatus(credential.id)
        : credential.kind === 'oauth'
          ? oauth.grantStatus(credential.id)
          : credential.kind === 'membership'
            ? members.membershipStatus(credential)
            : keys.keyStatus(credential.id),
    now,
    (error) => onError(error, 'credential check failed'),
  );

  return {
    ...(services as Services),
    database,
    now,
    bus,
    credentials,
    upkeep,
    async authenticate(credential, account) {
      const base =
        (await auth.authenticateSession(credential)) ??
        (await keys.authenticateApiKey(credential)) ??
        (await oauth.authenticateAccessToken(credential));
      return base && members.actIn(base, account);
    },
    noteRequest() {
      lastRequestAt = performance.now();
    },
    async close() {
      for (const stop of stops) await stop();
      upkeep.stop();
      credentials.close();
      await bus.close();
      if (!options.database) await database.close();
    },
  };
}
