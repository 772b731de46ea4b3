import { randomUUID } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { buildApp } from '../app.js';
import { loadConfig, type Config } from '../config.js';
import { openDatabase, type DatabaseHandle } from '../db/connection.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../runtime.js';
import type { AuthContext, SpaceAuth } from '../lib/auth-context.js';
import { connectMcp } from './mcp-client.js';
import { adminQuery } from './template-database.js';

/**
 * A fresh database per test file: in-memory PGlite by default, or a new
 * database on the PostgreSQL server named by TEST_DATABASE_URL, dropped after.
 * Each starts as a copy of the migrated database of test/template-database.ts.
 */
export async function createTestDatabase(statementTimeoutMs?: number): Promise<DatabaseHandle> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    return openDatabase({ dataDir: 'memory://', statementTimeoutMs, startFrom: pgliteTemplate() });
  }
  const name = `engram_test_${randomUUID().replaceAll('-', '')}`;
  const template = inject('postgresTemplate');
  await adminQuery(serverUrl, `create database ${name}${template ? ` template ${template}` : ''}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({
    databaseUrl: url.toString(),
    dataDir: '',
    statementTimeoutMs,
  });
  return {
    ...handle,
    close: async () => {
      await handle.close();
      await adminQuery(serverUrl, `drop database if exists ${name} with (force)`);
    },
  };
}

let templateTar: Uint8Array | undefined;
function pgliteTemplate(): Uint8Array | undefined {
  const file = inject('pgliteTemplate');
  if (file) templateTar ??= readFileSync(file);
  return templateTar;
}

export function testConfig(overrides: Partial<Record<keyof Config, string>> = {}): Config {
  return loadConfig({
    LOG_LEVEL: 'silent',
    NODE_ENV: 'test',
    // Loaded 2-core CI machines stretch big test transactions past the 5 s default;
    // tests of the timeout itself set it low.
    STATEMENT_TIMEOUT_MS: '60000',
    ...overrides,
  });
}

export interface TestApp {
  app: FastifyInstance;
  database: DatabaseHandle;
  runtime: Runtime;
  close(): Promise<void>;
}

export async function createTestApp(
  overrides: Partial<Record<keyof Config, string>> = {},
  options: Pick<RuntimeOptions, 'now' | 'webhooks'> = {},
): Promise<TestApp> {
  const config = testConfig(overrides);
  const database = await createTestDatabase(config.STATEMENT_TIMEOUT_MS);
  const runtime = await createRuntime(config, { ...options, database });
  const app = await buildApp({ config, runtime });
  await app.ready();
  return {
    app,
    database,
    runtime,
    close: async () => {
      await app.close();
      await runtime.close();
      await database.close();
    },
  };
}

let userCounter = 0;

/** Registers a new user with a unique email; returns the session token and user. */
export async function signUp(app: FastifyInstance, fields: Record<string, string> = {}) {
  userCounter += 1;
  const response = await app.inject({
    method: 'POST',
    url: '/auth/register',
    payload: {
      email: `user${userCounter}-${randomUUID().slice(0, 8)}@example.com`,
      password: 'Password123',
      firstName: 'Ada',
      lastName: 'Lovelace',
      ...fields,
    },
  });
  if (response.statusCode !== 201) throw new Error(`sign-up failed: ${response.body}`);
  return response.json<{ token: string; user: { id: string; email: string; apiKey: string } }>();
}

/**
 * A fresh account reached both ways: REST with its session, MCP (a 2025-era
 * client) with the API key sign-up made. The caller closes `mcp`.
 */
export async function signUpAgent(t: TestApp, baseUrl: string) {
  const { token, user } = await signUp(t.app);
  const mcp = await connectMcp(baseUrl, user.apiKey);
  return { rest: as(t.app, token), mcp, userId: user.id, accountId: await accountIdOf(t, user.id) };
}

/** `app.inject` with the bearer token set. */
export function as(app: FastifyInstance, token: string) {
  return (options: InjectOptions): Promise<LightMyRequestResponse> =>
    app.inject({
      ...options,
      headers: { ...options.headers, authorization: `Bearer ${token}` },
    });
}

/** A clock tests move by hand. */
export function manualClock(start = new Date()) {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advanceDays(days: number) {
      current += days * 86_400_000;
    },
    advanceMs(ms: number) {
      current += ms;
    },
  };
}

/** The personal account of a user (the one sign-up created). */
export async function accountIdOf(t: TestApp, userId: string): Promise<string> {
  const member = await t.database.db
    .selectFrom('account_members')
    .select('account_id')
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirstOrThrow();
  return member.account_id;
}

/** Moves the user's account to another plan of the shared catalog (its limits apply at once). */
export async function setPlan(t: TestApp, userId: string, planId: string): Promise<void> {
  const accountId = await accountIdOf(t, userId);
  await t.database.db
    .updateTable('subscriptions')
    .set({ plan_id: planId })
    .where('account_id', '=', accountId)
    .execute();
  // Written past the billing service: tell the runtime, as billing would.
  t.runtime.billing.planChanged?.(accountId);
}

/** The credential acting in its account's default space (whose id is the account's). */
export function inDefaultSpace(auth: AuthContext): SpaceAuth {
  return { ...auth, space: { id: auth.accountId, slug: 'default' } };
}
