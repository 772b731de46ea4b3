import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PLAN_CHANGES_BY_OPERATOR, subscription } from '@engram/shared';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { loadConfig, planSelfService, type Config } from '../config.js';
import { openDatabase, type DatabaseHandle } from '../db/connection.js';
import { currentPlan } from '../features/entitlements/entitlements.service.js';
import { createRuntime, type Runtime } from '../runtime.js';
import {
  accountIdOf,
  as,
  createTestDatabase,
  signUp,
  testConfig,
  type TestApp,
} from '../test/harness.js';
import { errorShapeProblem } from '../test/http-assertions.js';
import { engramCommand } from '../test/server-process.js';

/**
 * Issue 31, finding 3: with no payment provider, any owner on a shared
 * server could take the top plan (POST /api/billing/change-plan answered
 * 200). Now a server others can reach (HOST not loopback, or PUBLIC_URL set)
 * leaves plans to its operator (`engram plan set`) unless PLAN_SELF_SERVICE
 * says otherwise; owners may still give a plan up.
 */

/** One database, several servers over it, each with its own settings. */
let database: DatabaseHandle;
const servers: { app: FastifyInstance; runtime: Runtime }[] = [];

async function serverWith(overrides: Partial<Record<keyof Config, string>>): Promise<TestApp> {
  const config = testConfig(overrides);
  const runtime = await createRuntime(config, { database });
  const app = await buildApp({ config, runtime });
  await app.ready();
  servers.push({ app, runtime });
  return { app, database, runtime, close: async () => undefined };
}

beforeAll(async () => {
  database = await createTestDatabase(60_000);
});
afterAll(async () => {
  for (const { app, runtime } of servers) {
    await app.close();
    await runtime.close();
  }
  await database.close();
});

type Call = ReturnType<typeof as>;

async function subscriptionOf(call: Call) {
  const response = await call({ method: 'GET', url: '/api/billing/subscription' });
  expect(response.statusCode, response.body).toBe(200);
  return subscription.parse(response.json());
}

const returnUrls = {
  successUrl: 'http://127.0.0.1:8787/dashboard?success=true&plan=team',
  cancelUrl: 'http://127.0.0.1:8787/billing?canceled=true&plan=team',
};

/** Every way an owner could take a paid plan for themselves. */
const takings = [
  { url: '/api/billing/change-plan', payload: { planId: 'team', priceId: 'price_team_monthly' } },
  {
    url: '/api/billing/change-plan',
    payload: { planId: 'starter-annual', priceId: 'price_starter_annual' },
  },
  { url: '/api/billing/checkout', payload: { priceId: 'price_team_monthly', ...returnUrls } },
];

describe('plan changes without a payment provider', () => {
  it('decides who changes plans from where the server listens', () => {
    const settings = (env: Record<string, string>) => planSelfService(loadConfig(env));
    expect(settings({})).toBe(true);
    expect(settings({ HOST: 'localhost' })).toBe(true);
    expect(settings({ HOST: '::1' })).toBe(true);
    expect(settings({ HOST: '127.0.0.2' })).toBe(true);
    expect(settings({ HOST: '0.0.0.0' })).toBe(false);
    expect(settings({ HOST: '::' })).toBe(false);
    expect(settings({ HOST: '10.0.0.5' })).toBe(false);
    expect(settings({ HOST: '127.attacker.example' })).toBe(false);
    expect(settings({ PUBLIC_URL: 'https://engram.example.com' })).toBe(false);
    expect(settings({ HOST: '0.0.0.0', PLAN_SELF_SERVICE: 'true' })).toBe(true);
    expect(settings({ PLAN_SELF_SERVICE: 'false' })).toBe(false);
    expect(() => loadConfig({ PLAN_SELF_SERVICE: 'yes' })).toThrow(/PLAN_SELF_SERVICE/);
  });

  for (const [label, overrides] of [
    ['listening on every interface', { HOST: '0.0.0.0' }],
    ['with a PUBLIC_URL', { PUBLIC_URL: 'https://engram.example.com' }],
    ['with PLAN_SELF_SERVICE=false on loopback', { PLAN_SELF_SERVICE: 'false' }],
  ] as const) {
    it(`refuses an owner taking a paid plan on a server ${label}; the plan is unchanged`, async () => {
      const t = await serverWith(overrides);
      const owner = await signUp(t.app);
      const call = as(t.app, owner.token);
      const accountId = await accountIdOf(t, owner.user.id);
      expect(await subscriptionOf(call)).toMatchObject({ planChanges: 'operator', plan: 'free' });

      for (const attempt of takings) {
        const response = await call({ method: 'POST', ...attempt });
        expect(response.statusCode, response.body).toBe(403);
        expect(errorShapeProblem(response)).toBeNull();
        expect(response.json()).toEqual({ error: PLAN_CHANGES_BY_OPERATOR, code: 'FORBIDDEN' });
      }
      expect(await subscriptionOf(call)).toMatchObject({
        plan: 'free',
        limitsPlan: { id: 'free' },
        features: { maxEntities: 1_000 },
      });
      expect((await currentPlan(database.db, accountId)).id).toBe('free');
    });
  }

  it('lets an owner give up a plan the operator set: cancel, undo, move to Free', async () => {
    const t = await serverWith({ HOST: '0.0.0.0' });
    const owner = await signUp(t.app);
    const call = as(t.app, owner.token);
    const accountId = await accountIdOf(t, owner.user.id);
    await t.runtime.billing.setPlanByOperator(owner.user.email, 'pro');
    expect((await subscriptionOf(call)).plan).toBe('pro');

    // Nothing here raises the limits above what the operator set.
    const cancel = await call({
      method: 'POST',
      url: '/api/billing/cancel-subscription',
      payload: { immediate: false },
    });
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect(cancel.json().subscription).toMatchObject({ plan: 'pro', cancelAtPeriodEnd: true });
    const undo = await call({
      method: 'POST',
      url: '/api/billing/reactivate-subscription',
      payload: {},
    });
    expect(undo.statusCode, undo.body).toBe(200);
    expect(undo.json().subscription).toMatchObject({ plan: 'pro', cancelAtPeriodEnd: false });
    // Another paid plan, even a smaller one, is the operator's to give.
    const sideways = await call({
      method: 'POST',
      url: '/api/billing/change-plan',
      payload: { planId: 'starter', priceId: 'price_starter_monthly' },
    });
    expect(sideways.statusCode).toBe(403);
    const toFree = await call({
      method: 'POST',
      url: '/api/billing/change-plan',
      payload: { planId: 'free', priceId: null },
    });
    expect(toFree.statusCode, toFree.body).toBe(200);
    // Free from the period end, like any downgrade; keeping Pro again stays open.
    expect(toFree.json().subscription).toMatchObject({
      plan: 'pro',
      planChanges: 'operator',
      scheduledChange: { plan: 'free' },
    });
    const keep = await call({
      method: 'POST',
      url: '/api/billing/change-plan',
      payload: { planId: 'pro', priceId: 'price_pro_monthly' },
    });
    expect(keep.statusCode, keep.body).toBe(200);
    expect(keep.json().subscription).toMatchObject({ plan: 'pro', scheduledChange: null });
    const now = await call({
      method: 'POST',
      url: '/api/billing/cancel-subscription',
      payload: { immediate: true },
    });
    expect(now.json().subscription).toMatchObject({ plan: 'free', planChanges: 'operator' });
    expect((await currentPlan(database.db, accountId)).id).toBe('free');
  });

  it('lets every owner choose where PLAN_SELF_SERVICE=true, and on a loopback server by default', async () => {
    for (const overrides of [{ HOST: '0.0.0.0', PLAN_SELF_SERVICE: 'true' }, {}]) {
      const t = await serverWith(overrides);
      const owner = await signUp(t.app);
      const call = as(t.app, owner.token);
      expect((await subscriptionOf(call)).planChanges).toBe('self');
      const response = await call({
        method: 'POST',
        url: '/api/billing/change-plan',
        payload: { planId: 'team', priceId: 'price_team_monthly' },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().subscription).toMatchObject({
        plan: 'team',
        limitsPlan: { id: 'team' },
        features: { maxEntities: 1_000_000 },
      });
      const checkout = await call({
        method: 'POST',
        url: '/api/billing/checkout',
        payload: { priceId: 'price_pro_monthly', ...returnUrls },
      });
      expect(checkout.statusCode, checkout.body).toBe(200);
      // A lower plan, so from the period end (the plan in force stays until then).
      expect(await subscriptionOf(call)).toMatchObject({
        plan: 'team',
        scheduledChange: { plan: 'pro' },
      });
    }
  });
});

// ── the operator's command ──────────────────────────────────────────────────

const run = promisify(execFile);

/** A database the CLI (a child process) opens by its settings: a PGlite folder, or a PostgreSQL database. */
async function cliDatabase(): Promise<{
  env: NodeJS.ProcessEnv;
  open: () => Promise<DatabaseHandle>;
  remove: () => Promise<void>;
}> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const dataDir = await mkdtemp(join(tmpdir(), 'engram-plan-cli-'));
    return {
      env: { DATA_DIR: dataDir },
      open: () => openDatabase({ dataDir }),
      remove: () => rm(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `engram_test_${randomUUID().replaceAll('-', '')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    open: () => openDatabase({ databaseUrl: url.toString(), dataDir: '' }),
    remove: async () => {
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}

/** `engram plan …` as the operator runs it; its exit code and output. */
async function engramPlan(env: NodeJS.ProcessEnv, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [...engramCommand, 'plan', ...args], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TMPDIR: process.env.TMPDIR,
        LOG_LEVEL: 'silent',
        ...env,
      },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('engram plan set', { timeout: 180_000 }, () => {
  it('sets the plan of the account the email owns, and refuses unknown emails and plans', async () => {
    const cli = await cliDatabase();
    try {
      // A person signs up on the server, which then stops (the data folder is one process's).
      let handle = await cli.open();
      const config = testConfig({ HOST: '0.0.0.0' });
      let runtime = await createRuntime(config, { database: handle });
      const app = await buildApp({ config, runtime });
      const owner = await signUp(app, {
        email: `Plan.Owner-${randomUUID().slice(0, 6)}@example.com`,
      });
      await app.close();
      await runtime.close();
      await handle.close();

      const set = await engramPlan(cli.env, 'set', `  ${owner.user.email.toUpperCase()} `, 'team');
      expect(set.stderr).toBe('');
      expect(set.code).toBe(0);
      expect(set.stdout.trim()).toBe(`${owner.user.email}: Free (free) → Power User (team)`);

      const unknownEmail = await engramPlan(cli.env, 'set', 'nobody@example.com', 'pro');
      expect(unknownEmail.code).toBe(1);
      expect(unknownEmail.stderr.trim()).toBe(
        'No account on this server is owned by nobody@example.com.',
      );
      const unknownPlan = await engramPlan(cli.env, 'set', owner.user.email, 'gold');
      expect(unknownPlan.code).toBe(1);
      expect(unknownPlan.stderr.trim()).toBe(
        'Unknown plan "gold". Plans: free, starter, pro, team, starter-annual, pro-annual, team-annual.',
      );
      const usage = await engramPlan(cli.env, 'get', owner.user.email);
      expect(usage.code).toBe(1);
      expect(usage.stderr.trim()).toBe('Usage: engram plan set <email> <plan>');

      // The server starts again: the owner has the plan the operator set, and its limits.
      handle = await cli.open();
      runtime = await createRuntime(config, { database: handle });
      const again = await buildApp({ config, runtime });
      try {
        const sub = await subscriptionOf(as(again, owner.token));
        expect(sub).toMatchObject({
          plan: 'team',
          status: 'active',
          limitsPlan: { id: 'team' },
          features: { maxEntities: 1_000_000 },
          planChanges: 'operator',
        });
      } finally {
        await again.close();
        await runtime.close();
        await handle.close();
      }
    } finally {
      await cli.remove();
    }
  });
});
