import { z } from 'zod';
import { isLoopbackBind } from './lib/loopback.js';

/**
 * The only reader of process.env. Validated once at start; a bad value stops
 * the process with a message naming each bad variable.
 */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  /**
   * PGlite's buffer cache (PostgreSQL's shared_buffers) in MB. It lives in the
   * process's memory and fills as data is read, so it bounds much of what an
   * embedded server holds; the OS's page cache still keeps the files warm.
   */
  PGLITE_SHARED_BUFFERS_MB: z.coerce.number().int().min(1).max(4096).default(16),
  /**
   * How V8 compiles the embedded PostgreSQL (decision 032): `baseline` (its
   * baseline compiler only) holds ~55–70 MB less idle and ~140 MB less while
   * loading; `optimizing` runs search, recall and bulk loads 1.3–1.5× faster.
   */
  PGLITE_COMPILER: z.enum(['baseline', 'optimizing']).default('baseline'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  /**
   * With DATABASE_URL: how many of its connections this server uses at once.
   * The rest of its requests wait in the server, writes first (decision 035):
   * more statements running at once than the database has cores only slow
   * each one, an account's write under its lock too. Unset: db/connection.ts's default.
   */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(100).optional(),
  /** Redis for realtime fan-out across nodes; without it one node serves realtime in-process. */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** Where the built web app lives; served at / when the folder exists. */
  WEB_DIST_DIR: z.string().min(1).optional(),
  SESSION_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  /**
   * Secret from which personal API keys are derived. Without it, one is
   * generated on first start and kept in the database.
   */
  SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  /** The API key `engram mcp`, `import` and `export` act with (which account, as whom). */
  ENGRAM_API_KEY: z.string().min(1).optional(),
  /** Sign-up and sign-in attempts allowed per client address per minute. */
  AUTH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(300),
  /** Failed sign-ins for one email before it is locked for LOGIN_LOCK_MINUTES. */
  LOGIN_MAX_FAILURES: z.coerce.number().int().min(1).default(10),
  LOGIN_LOCK_MINUTES: z.coerce.number().int().min(1).default(15),
  /** Password changes (right or wrong current password) allowed per user per 15 minutes. */
  PASSWORD_CHANGE_ATTEMPTS: z.coerce.number().int().min(1).default(5),
  /** Sign-ups that hit an existing email allowed per client address per hour (see docs/security.md). */
  REGISTER_CONFLICTS_PER_HOUR: z.coerce.number().int().min(1).default(20),
  /** Requests per credential per minute on /api/* and /mcp. */
  API_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(20_000),
  /**
   * Requests per account per minute on /api/* and /mcp, across all its
   * credentials; unset, three times API_RATE_LIMIT_PER_MINUTE (http/rate-limits.ts).
   */
  API_RATE_LIMIT_PER_ACCOUNT_PER_MINUTE: z.coerce.number().int().min(1).optional(),
  /**
   * How many proxy hops in front of Engram to believe in X-Forwarded-For when
   * taking the client address: `true` is one (the nearest proxy's view), a
   * number that many, `false` (the default) none. Never "all": the leftmost
   * entry is whatever the client wrote.
   */
  TRUST_PROXY: z
    .string()
    .regex(/^(true|false|\d+)$/, 'must be true, false or a number of proxy hops')
    .default('false')
    .transform((value) => (value === 'true' ? 1 : value === 'false' ? 0 : Number(value))),
  /**
   * The address people open Engram at (e.g. https://engram.example.com). Its
   * origin is the one browser origin /mcp and /ws/connect accept; unset, pages
   * on loopback origins are accepted (docs/security.md "Origins").
   */
  PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .optional(),
  /**
   * Whether OAuth clients may register themselves at /oauth/register (RFC 7591);
   * clients known by a Client ID Metadata Document work either way
   * (docs/connect.md). The OAuth issuer is PUBLIC_URL's origin (required
   * behind a proxy), else the origin the start banner prints (lib/local-origin.ts).
   */
  OAUTH_DYNAMIC_REGISTRATION: z.enum(['true', 'false']).default('true'),
  /** Requests per client address per minute on /oauth/authorize, /oauth/token and /oauth/revoke (429 past it). */
  OAUTH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  /**
   * Development and tests only: outbound fetches made on a client's say-so
   * (OAuth client metadata documents) may reach loopback and private
   * addresses. Off, they reach public addresses only (docs/security.md).
   */
  ALLOW_PRIVATE_NETWORK_TARGETS: z.enum(['true', 'false']).default('false'),
  /**
   * Mail for invitations (features/members): an SMTP URL
   * (`smtps://user:pass@smtp.example.com`, `smtp://127.0.0.1:2525`). Mails go
   * only when PUBLIC_URL is set too (links are built from it, never from a
   * request); otherwise nothing is mailed and the Members screen shows each
   * link to copy.
   */
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  /** The From of invitation mails (`Engram <engram@example.com>`); required with SMTP_URL. */
  SMTP_FROM: z.string().min(3).max(200).optional(),
  /** Longest a database statement (or, on PGlite, a transaction) may run before it is cut with 503. */
  STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(10).default(5_000),
  /** Open MCP sessions per account and on this node in all; the oldest idle one makes room. */
  MCP_MAX_SESSIONS_PER_ACCOUNT: z.coerce.number().int().min(1).default(20),
  MCP_MAX_SESSIONS: z.coerce.number().int().min(1).default(2_000),
  /** An MCP session unused this long is closed. */
  MCP_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).default(10),
  /** Open WebSocket connections per API key and per account. */
  WS_MAX_CONNECTIONS_PER_KEY: z.coerce.number().int().min(1).default(20),
  WS_MAX_CONNECTIONS_PER_ACCOUNT: z.coerce.number().int().min(1).default(100),
  /** Entity subscriptions one WebSocket may hold. */
  WS_MAX_ENTITY_SUBSCRIPTIONS: z.coerce.number().int().min(1).default(1_000),
  /** Client messages queued unprocessed on one WebSocket before it is closed. */
  WS_MAX_QUEUED_MESSAGES: z.coerce.number().int().min(1).default(100),
  /** Rows one read answers at most (entities, relations, search results, path steps). */
  READ_MAX_ROWS: z.coerce.number().int().min(1).default(1_000),
  /**
   * Days the change log keeps every account's events, replacing each plan's
   * own window (the plan catalog's changeLogRetentionDays); unset, the plan's.
   */
  CHANGE_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).optional(),
  /** Bytes of content one read answers at most; past it the answer is cut and says so. */
  READ_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(4 * 1024 * 1024),
  /**
   * Without a payment provider: whether account owners pick any plan
   * themselves (true) or plans are set by the operator with `engram plan set`
   * (false). Unset, true only on a server that listens on loopback without
   * PUBLIC_URL (see `planSelfService`). Ignored with Stripe: payments decide.
   */
  PLAN_SELF_SERVICE: z.enum(['true', 'false']).optional(),
  /**
   * Billing (docs/configuration.md, "Billing"). With STRIPE_SECRET_KEY set, plans
   * are paid through Stripe and the other STRIPE_* values are required;
   * without it the built-in `none` provider applies plan changes at once
   * (by whom: PLAN_SELF_SERVICE).
   */
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  /** Signing secret of the webhook endpoint POST /api/billing/webhook (whsec_…). */
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Publishable key (pk_…) the browser's card form loads Stripe.js with. */
  STRIPE_PUBLISHABLE_KEY: z.string().min(1).optional(),
  /** Stripe price ids, one per paid plan and period. */
  STRIPE_PRICE_STARTER_MONTHLY: z.string().min(1).optional(),
  STRIPE_PRICE_STARTER_ANNUAL: z.string().min(1).optional(),
  STRIPE_PRICE_PRO_MONTHLY: z.string().min(1).optional(),
  STRIPE_PRICE_PRO_ANNUAL: z.string().min(1).optional(),
  STRIPE_PRICE_TEAM_MONTHLY: z.string().min(1).optional(),
  STRIPE_PRICE_TEAM_ANNUAL: z.string().min(1).optional(),
  /** Another address for Stripe's API (a local stand-in in tests); Stripe's own when unset. */
  STRIPE_API_BASE: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .optional(),
  /**
   * An OpenAI-compatible embeddings endpoint (a local Ollama, say): with it,
   * observations are embedded in the background and recall adds a semantic
   * ranking (features/embeddings). A base URL gets `/v1/embeddings` (or
   * `/embeddings` after a path ending in `/v1`); a URL ending in `/embeddings`
   * is used as it is. Unset, nothing of this runs and recall is lexical.
   */
  EMBEDDINGS_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .optional(),
  /** The model the endpoint embeds with; required with EMBEDDINGS_URL. Changing it re-embeds everything. */
  EMBEDDINGS_MODEL: z.string().min(1).max(200).optional(),
  /** Sent as `Authorization: Bearer …` to EMBEDDINGS_URL when set; never logged. */
  EMBEDDINGS_API_KEY: z.string().min(1).optional(),
});

/** What a Stripe setup needs besides the secret key. */
const STRIPE_REQUIRED = [
  'STRIPE_WEBHOOK_SECRET',
  'STRIPE_PUBLISHABLE_KEY',
  'STRIPE_PRICE_STARTER_MONTHLY',
  'STRIPE_PRICE_STARTER_ANNUAL',
  'STRIPE_PRICE_PRO_MONTHLY',
  'STRIPE_PRICE_PRO_ANNUAL',
  'STRIPE_PRICE_TEAM_MONTHLY',
  'STRIPE_PRICE_TEAM_ANNUAL',
] as const;

/**
 * Settings that only make sense together: Stripe needs all of its values once
 * its key is given, an embeddings endpoint its model, mail its sender.
 */
const checkedEnvSchema = envSchema.superRefine((env, context) => {
  if (env.EMBEDDINGS_URL && !env.EMBEDDINGS_MODEL) {
    context.addIssue({
      code: 'custom',
      path: ['EMBEDDINGS_MODEL'],
      message: 'is required when EMBEDDINGS_URL is set (the model the endpoint embeds with)',
    });
  }
  if (env.SMTP_URL && !env.SMTP_FROM) {
    context.addIssue({
      code: 'custom',
      path: ['SMTP_FROM'],
      message: 'is required when SMTP_URL is set (the From of invitation mails)',
    });
  }
  if (!env.STRIPE_SECRET_KEY) return;
  for (const name of STRIPE_REQUIRED) {
    if (!env[name]) {
      context.addIssue({
        code: 'custom',
        path: [name],
        message: 'is required when STRIPE_SECRET_KEY is set',
      });
    }
  }
});

export type Config = z.infer<typeof envSchema>;

/**
 * PLAN_SELF_SERVICE as it applies: when unset, people pick their own plan
 * only on a server nobody else can reach (loopback, no PUBLIC_URL); a server
 * others use leaves plans to its operator (docs/security.md "Plans").
 */
export function planSelfService(config: Config): boolean {
  if (config.PLAN_SELF_SERVICE) return config.PLAN_SELF_SERVICE === 'true';
  return !config.PUBLIC_URL && isLoopbackBind(config.HOST);
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings count as unset, so `DATABASE_URL=` in a .env file means "embedded".
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const result = checkedEnvSchema.safeParse(present);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid environment configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}
