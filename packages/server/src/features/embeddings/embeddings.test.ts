import { randomUUID } from 'node:crypto';
import { analyticsSummary } from '@engram/shared';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { ConfigError, loadConfig } from '../../config.js';
import type { SpaceAuth } from '../../lib/auth-context.js';
import { createRuntime, type Runtime } from '../../runtime.js';
import { createEntity, newAccount, type Account } from '../../test/graph-fixtures.js';
import { accountIdOf, createTestApp, testConfig, type TestApp } from '../../test/harness.js';
import { EmbeddingClient, embeddingsEndpoint } from './embedding-client.js';
import {
  startEmbeddingStandIn,
  type EmbeddingStandIn,
} from '../../test/fakes/embedding-stand-in.js';
import type { EmbeddingIndexer, IndexerOptions, IndexerRun } from './embedding-indexer.js';
import { Embedder, semanticScores } from './embeddings.service.js';

/**
 * The semantic index against a local stand-in endpoint (node:http, hashed
 * bag-of-words vectors): the production client, indexer and storage, on the
 * test database. `plain` is a server without EMBEDDINGS_URL; the runtimes
 * with it share its database, as nodes or restarts would.
 */

const API_KEY = 'sk-test-embeddings-key-0123456789';
const MODEL = 'stand-in-1';
const DIMENSIONS = 64;

let standIn: EmbeddingStandIn;
let plain: TestApp;
const opened: { runtime: Runtime; app?: FastifyInstance }[] = [];
/** Everything the runtimes reported (what the server would log). */
const logged: string[] = [];

beforeAll(async () => {
  standIn = await startEmbeddingStandIn(DIMENSIONS);
  plain = await createTestApp();
});
afterAll(async () => {
  for (const { runtime, app } of opened.reverse()) {
    await app?.close();
    // One of them was closed midway already (the restart test).
    await runtime.close().catch(() => {});
  }
  await plain.close();
  await standIn.close();
});
beforeEach(() => {
  standIn.reset();
  standIn.requests.length = 0;
});

/** A runtime with embeddings on over the shared database; its indexer runs only when told. */
async function embeddingRuntime(
  overrides: Record<string, string> = {},
  indexer: Partial<IndexerOptions> = {},
): Promise<{ runtime: Runtime; indexer: EmbeddingIndexer; app: FastifyInstance }> {
  const config = testConfig({
    EMBEDDINGS_URL: standIn.url,
    EMBEDDINGS_MODEL: MODEL,
    EMBEDDINGS_API_KEY: API_KEY,
    ...overrides,
  });
  const runtime = await createRuntime(config, {
    database: plain.database,
    embeddingIndexer: { intervalMs: 60 * 60_000, ...indexer },
    onError: (error, message) => {
      const fields = error instanceof Error ? { ...error, message: error.message } : error;
      logged.push(`${message} ${JSON.stringify(fields)} ${String(error)}`);
    },
  });
  const app = await buildApp({ config, runtime });
  await app.ready();
  opened.push({ runtime, app });
  return { runtime, indexer: runtime.embeddings.indexer!, app };
}

/** Runs until no work is left (a walk and the events after it may take two runs). */
async function settle(indexer: EmbeddingIndexer): Promise<IndexerRun> {
  const total: IndexerRun = { embedded: 0, removed: 0, accounts: 0, more: false };
  for (let runs = 0; runs < 20; runs += 1) {
    const run = await indexer.runOnce();
    total.embedded += run.embedded;
    total.removed += run.removed;
    total.accounts += run.accounts;
    if (run.failed) return { ...total, failed: run.failed };
    if (!run.more) return total;
  }
  throw new Error('the indexer never settled');
}

interface VectorRow {
  observation_id: string;
  model: string;
  bytes: number;
}

/** The account's vectors, every space's. */
async function vectorsOf(accountId: string): Promise<VectorRow[]> {
  const result = await sql<VectorRow>`
    select observation_id, model, octet_length(vector) as bytes
      from observation_embeddings
     where space_id in (select id from spaces where account_id = ${accountId})
  `.execute(plain.database.db);
  return result.rows;
}

/** The account's observations, every space's. */
async function observationIdsOf(accountId: string): Promise<string[]> {
  const result = await sql<{ id: string }>`
    select id from observations
     where space_id in (select id from spaces where account_id = ${accountId}) order by id
  `.execute(plain.database.db);
  return result.rows.map((row) => row.id);
}

/** One space's observations. */
async function observationIdsIn(spaceId: string): Promise<string[]> {
  const result = await sql<{ id: string }>`
    select id from observations where space_id = ${spaceId} order by id
  `.execute(plain.database.db);
  return result.rows.map((row) => row.id);
}

/** What the account stores beside history (a delete moves rows into history: migration 026). */
async function storedBytes(accountId: string): Promise<number> {
  const result = await sql<{ bytes: number }>`
    select (stored_bytes - history_bytes)::float8 as bytes from accounts where id = ${accountId}
  `.execute(plain.database.db);
  return result.rows[0]!.bytes;
}

async function embeddingsLine(app: FastifyInstance, account: Account) {
  const response = await app.inject({
    method: 'GET',
    url: '/api/analytics',
    headers: { authorization: `Bearer ${account.token}` },
  });
  expect(response.statusCode, response.body).toBe(200);
  return analyticsSummary.parse(response.json()).embeddings;
}

async function observationId(accountId: string, content: string): Promise<string> {
  const result = await sql<{ id: string }>`
    select id from observations
     where space_id in (select id from spaces where account_id = ${accountId})
       and content = ${content}
  `.execute(plain.database.db);
  return result.rows[0]!.id;
}

const numbered = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => `${prefix} note number ${index + 1}`);

describe('without EMBEDDINGS_URL', () => {
  it('runs nothing, writes nothing and answers null', async () => {
    const account = await newAccount(plain.app);
    await createEntity(account.req, { name: 'Off', observations: ['Maya started a new job'] });
    const accountId = await accountIdOf(plain, account.userId);

    expect(plain.runtime.embeddings.embedder).toBeNull();
    expect(plain.runtime.embeddings.indexer).toBeUndefined();
    const ids = await observationIdsOf(accountId);
    expect(await plain.runtime.embeddings.semanticScores(accountId, 'job', ids)).toBeNull();
    expect(await plain.runtime.embeddings.semanticCandidates(accountId, 'job', 5)).toBeNull();
    const summary = await plain.app.inject({
      method: 'GET',
      url: '/api/analytics',
      headers: { authorization: `Bearer ${account.token}` },
    });
    expect(summary.json()).not.toHaveProperty('embeddings');
    const rows = await sql<{ n: number }>`
      select (select count(*) from observation_embeddings)::int
           + (select count(*) from embedding_state)::int
           + (select count(*) from embedding_models)::int as n
    `.execute(plain.database.db);
    expect(rows.rows[0]!.n).toBe(0);
    expect(standIn.requests).toHaveLength(0);
  });
});

describe('settings', () => {
  it('needs EMBEDDINGS_MODEL with EMBEDDINGS_URL, and an http(s) URL', () => {
    expect(() => loadConfig({ EMBEDDINGS_URL: 'http://127.0.0.1:11434' })).toThrow(ConfigError);
    expect(() => loadConfig({ EMBEDDINGS_URL: 'http://127.0.0.1:11434' })).toThrow(
      /EMBEDDINGS_MODEL: is required when EMBEDDINGS_URL is set/,
    );
    expect(() =>
      loadConfig({ EMBEDDINGS_URL: 'file:///etc/passwd', EMBEDDINGS_MODEL: 'm' }),
    ).toThrow(/EMBEDDINGS_URL/);
    const config = loadConfig({ EMBEDDINGS_URL: 'http://127.0.0.1:11434', EMBEDDINGS_MODEL: 'm' });
    expect(config.EMBEDDINGS_MODEL).toBe('m');
  });

  it('posts to /v1/embeddings under a base URL, or to the URL given in full', () => {
    const at = (url: string) => embeddingsEndpoint(url).toString();
    expect(at('http://localhost:11434')).toBe('http://localhost:11434/v1/embeddings');
    expect(at('http://localhost:11434/')).toBe('http://localhost:11434/v1/embeddings');
    expect(at('https://api.openai.com/v1')).toBe('https://api.openai.com/v1/embeddings');
    expect(at('https://api.openai.com/v1/')).toBe('https://api.openai.com/v1/embeddings');
    expect(at('http://host/proxy/embeddings')).toBe('http://host/proxy/embeddings');
    expect(at('http://host/proxy')).toBe('http://host/proxy/v1/embeddings');
  });
});

describe('the indexer', () => {
  it('embeds the backlog in batches, counts the vectors in storage and shows it on the dashboard', async () => {
    const { indexer, app } = await embeddingRuntime();
    const account = await newAccount(plain.app);
    const accountId = await accountIdOf(plain, account.userId);
    await createEntity(account.req, { name: 'Diary', observations: numbered('diary', 130) });
    await createEntity(account.req, {
      name: 'Maya',
      type: 'person',
      observations: ['Maya started a new job at Acme in March'],
    });
    const before = await storedBytes(accountId);
    expect(await embeddingsLine(app, account)).toEqual({
      model: MODEL,
      embedded: 0,
      pending: 131,
      lastError: null,
    });

    const run = await settle(indexer);
    expect(run.failed).toBeUndefined();
    const vectors = await vectorsOf(accountId);
    expect(vectors).toHaveLength(131);
    expect(new Set(vectors.map((row) => row.observation_id))).toEqual(
      new Set(await observationIdsOf(accountId)),
    );
    expect(vectors.every((row) => row.model === MODEL && row.bytes === DIMENSIONS)).toBe(true);
    // The real client: batches of at most 64, the key as a bearer token, the model named.
    const mine = standIn.requests.filter((request) =>
      request.input.some((text) => text.startsWith('diary')),
    );
    expect(mine.length).toBeGreaterThanOrEqual(3);
    for (const request of standIn.requests) {
      expect(request.input.length).toBeLessThanOrEqual(64);
      expect(request.authorization).toBe(`Bearer ${API_KEY}`);
      expect(request.path).toBe('/v1/embeddings');
      expect(request.model).toBe(MODEL);
    }
    // Each vector counts 100 bytes of row and one byte per dimension.
    expect(await storedBytes(accountId)).toBe(before + 131 * (100 + DIMENSIONS));
    expect(await embeddingsLine(app, account)).toEqual({
      model: MODEL,
      embedded: 131,
      pending: 0,
      lastError: null,
    });
    // Nothing left: another run asks the endpoint nothing.
    standIn.requests.length = 0;
    await settle(indexer);
    expect(standIn.requests).toHaveLength(0);
  });

  it('follows later writes: new observations embedded, vectors of deleted ones removed and uncounted', async () => {
    const { indexer } = await embeddingRuntime();
    const account = await newAccount(plain.app);
    const accountId = await accountIdOf(plain, account.userId);
    const keep = await createEntity(account.req, {
      name: 'Keep',
      observations: ['first fact', 'second fact'],
    });
    const gone = await createEntity(account.req, { name: 'Gone', observations: ['doomed fact'] });
    await settle(indexer);
    expect(await vectorsOf(accountId)).toHaveLength(3);

    const added = await account.req({
      method: 'POST',
      url: `/api/entities/${keep.id}/observations`,
      payload: { observations: ['third fact'] },
    });
    expect(added.statusCode, added.body).toBe(201);
    await createEntity(account.req, { name: 'Fresh', observations: ['fresh fact'] });
    const deleted = await account.req({ method: 'DELETE', url: `/api/entities/${gone.id}` });
    expect(deleted.statusCode).toBe(200);
    // Replacing an entity's observations: one kept, one gone, one new.
    const replaced = await account.req({
      method: 'PUT',
      url: `/api/entities/${keep.id}`,
      payload: {
        name: 'Keep',
        type: 'concept',
        observations: ['first fact', 'third fact', 'fourth fact'],
      },
    });
    expect(replaced.statusCode, replaced.body).toBe(200);

    standIn.requests.length = 0;
    const before = await storedBytes(accountId);
    const run = await settle(indexer);
    expect(run.failed).toBeUndefined();
    // Three vectors stored, two removed (the deleted entity's, the replaced observation's).
    expect(run.removed).toBe(2);
    expect(await storedBytes(accountId)).toBe(before + (3 - 2) * (100 + DIMENSIONS));
    const ids = await observationIdsOf(accountId);
    const vectors = await vectorsOf(accountId);
    expect(new Set(vectors.map((row) => row.observation_id))).toEqual(new Set(ids));
    expect(ids).toHaveLength(4);
    // Only what was new went to the endpoint (from the change log, not a walk of everything).
    expect(standIn.requests.flatMap((request) => request.input).sort()).toEqual([
      'fourth fact',
      'fresh fact',
      'third fact',
    ]);
    const state = await sql<{ vectors: number }>`
      select vectors::int from embedding_state where account_id = ${accountId}
    `.execute(plain.database.db);
    expect(state.rows[0]!.vectors).toBe(4);
  });

  it('skips observations deleted while their batch was being embedded', async () => {
    const { indexer } = await embeddingRuntime();
    const account = await newAccount(plain.app);
    const accountId = await accountIdOf(plain, account.userId);
    const doomed = await createEntity(account.req, {
      name: 'Doomed',
      observations: ['vanishing fact one', 'vanishing fact two'],
    });
    await createEntity(account.req, { name: 'Stays', observations: ['lasting fact'] });
    let deletedOnce = false;
    standIn.behaviour.beforeAnswer = async (request) => {
      if (deletedOnce || !request.input.some((text) => text.startsWith('vanishing'))) return;
      deletedOnce = true;
      const response = await account.req({ method: 'DELETE', url: `/api/entities/${doomed.id}` });
      if (response.statusCode !== 200) throw new Error(response.body);
    };
    const before = await storedBytes(accountId);
    const run = await settle(indexer);
    expect(run.failed).toBeUndefined();
    expect(deletedOnce).toBe(true);
    const vectors = await vectorsOf(accountId);
    expect(vectors.map((row) => row.observation_id)).toEqual(await observationIdsOf(accountId));
    expect(vectors).toHaveLength(1);
    const state = await sql<{ vectors: number }>`
      select vectors::int from embedding_state where account_id = ${accountId}
    `.execute(plain.database.db);
    expect(state.rows[0]!.vectors).toBe(1);
    expect(await storedBytes(accountId)).toBeLessThan(before + 2 * (100 + DIMENSIONS));
  });

  it('keeps its backlog across a restart and does not embed twice', async () => {
    const first = await embeddingRuntime();
    const account = await newAccount(plain.app);
    const accountId = await accountIdOf(plain, account.userId);
    // Settle other tests' accounts first, so this one's batches are the only work.
    await settle(first.indexer);
    await createEntity(account.req, { name: 'Long', observations: numbered('restart', 130) });
    let requests = 0;
    standIn.behaviour.beforeAnswer = async () => {
      requests += 1;
      // The server stops while its second batch is in flight.
      if (requests === 2) void first.runtime.close();
    };
    await first.indexer.runOnce();
    // The batch in flight is stored whole or not at all: which one depends on
    // whether the close reached the database before its answer did.
    const kept = (await vectorsOf(accountId)).length;
    expect([64, 128]).toContain(kept);

    standIn.behaviour.beforeAnswer = undefined;
    standIn.requests.length = 0;
    const second = await embeddingRuntime();
    const run = await settle(second.indexer);
    expect(run.failed).toBeUndefined();
    expect(await vectorsOf(accountId)).toHaveLength(130);
    // Only those left were sent again.
    expect(standIn.requests.flatMap((request) => request.input)).toHaveLength(130 - kept);
  });

  it('backs off while the endpoint fails, shows the failure without the key, and recovers', async () => {
    const { indexer, app } = await embeddingRuntime({}, { backoffMs: 1_000, maxBackoffMs: 4_000 });
    await settle(indexer);
    const account = await newAccount(plain.app);
    const accountId = await accountIdOf(plain, account.userId);
    await createEntity(account.req, { name: 'Patient', observations: ['waiting fact'] });

    standIn.behaviour.failWith = 503;
    const delays: number[] = [];
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const run = await indexer.runOnce();
      expect(run.failed?.status).toBe(503);
      delays.push(indexer.nextDelayMs());
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 4_000]);
    expect(await vectorsOf(accountId)).toHaveLength(0);
    const failing = await embeddingsLine(app, account);
    expect(failing?.pending).toBe(1);
    expect(failing?.lastError).toMatch(/HTTP 503/);

    standIn.behaviour.failWith = 401;
    const refused = await indexer.runOnce();
    expect(refused.failed?.message).toMatch(/check EMBEDDINGS_API_KEY/);
    const line = await embeddingsLine(app, account);
    expect(line?.lastError).toMatch(/HTTP 401/);
    expect(JSON.stringify(line)).not.toContain(API_KEY);
    expect(refused.failed?.message).not.toContain(API_KEY);
    expect(refused.failed?.message).not.toContain(standIn.url);
    expect(logged.some((line) => line.includes('HTTP 401'))).toBe(true);
    expect(logged.filter((line) => line.includes(API_KEY))).toEqual([]);

    standIn.behaviour.failWith = undefined;
    const run = await settle(indexer);
    expect(run.failed).toBeUndefined();
    expect(indexer.nextDelayMs()).toBe(60 * 60_000);
    expect(await embeddingsLine(app, account)).toEqual({
      model: MODEL,
      embedded: 1,
      pending: 0,
      lastError: null,
    });
  });

  it('waits longer between scheduled runs while the endpoint is down', async () => {
    const { indexer } = await embeddingRuntime(
      {},
      { intervalMs: 20, backoffMs: 200, maxBackoffMs: 10_000 },
    );
    const account = await newAccount(plain.app);
    await createEntity(account.req, { name: 'Scheduled', observations: ['scheduled fact'] });
    standIn.behaviour.failWith = 502;
    indexer.start();
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    await indexer.stop();
    // Every 20 ms that would be dozens; backing off (200, 400, 800 ms) it is a handful.
    expect(standIn.requests.length).toBeGreaterThanOrEqual(2);
    expect(standIn.requests.length).toBeLessThanOrEqual(5);
  });

  it('gives up only on the texts the endpoint refuses, one by one', async () => {
    const { runtime, indexer } = await embeddingRuntime();
    await settle(indexer);
    const account = await newAccount(plain.app);
    const accountId = await accountIdOf(plain, account.userId);
    await createEntity(account.req, {
      name: 'Mixed',
      observations: ['a fine fact', 'a POISON fact', 'another fine fact'],
    });
    standIn.behaviour.refuse = 'POISON';
    const run = await settle(indexer);
    expect(run.failed).toBeUndefined();
    const vectors = await vectorsOf(accountId);
    expect(vectors).toHaveLength(3);
    const poisoned = await observationId(accountId, 'a POISON fact');
    expect(vectors.find((row) => row.observation_id === poisoned)?.bytes).toBe(0);
    expect(vectors.filter((row) => row.bytes === DIMENSIONS)).toHaveLength(2);
    const scores = await runtime.embeddings.semanticScores(
      accountId,
      'fine fact',
      await observationIdsOf(accountId),
    );
    expect(scores?.size).toBe(2);
    expect(scores?.has(poisoned)).toBe(false);
    // Done: never asked again.
    standIn.requests.length = 0;
    await settle(indexer);
    expect(standIn.requests).toHaveLength(0);
  });

  it('refuses vectors whose length changed under the same model', async () => {
    const { indexer, app } = await embeddingRuntime();
    await settle(indexer);
    const account = await newAccount(plain.app);
    const accountId = await accountIdOf(plain, account.userId);
    await createEntity(account.req, { name: 'Shifty', observations: ['a shifting fact'] });
    standIn.behaviour.dimensions = 32;
    const run = await indexer.runOnce();
    expect(run.failed?.failure).toBe('dimensions');
    // A failure like any other: the pause grows while it lasts.
    const first = indexer.nextDelayMs();
    expect((await indexer.runOnce()).failed?.failure).toBe('dimensions');
    expect(indexer.nextDelayMs()).toBe(first * 2);
    expect(await vectorsOf(accountId)).toHaveLength(0);
    expect((await embeddingsLine(app, account))?.lastError).toMatch(
      /32-dimension vectors where the index holds 64/,
    );
    standIn.behaviour.dimensions = DIMENSIONS;
    expect((await settle(indexer)).failed).toBeUndefined();
    expect(await vectorsOf(accountId)).toHaveLength(1);
  });

  it('waits while the account has no storage left for vectors', async () => {
    const { indexer, app } = await embeddingRuntime({}, { storageRetryMs: 60 * 60_000 });
    await settle(indexer);
    const account = await newAccount(plain.app);
    const accountId = await accountIdOf(plain, account.userId);
    await createEntity(account.req, { name: 'Crowded', observations: ['a crowded fact'] });
    // The free plan's 100 MB, all but a few bytes taken.
    await sql`update accounts set stored_bytes = 104857600 - 50 where id = ${accountId}`.execute(
      plain.database.db,
    );
    const run = await settle(indexer);
    expect(run.failed).toBeUndefined();
    expect(await vectorsOf(accountId)).toHaveLength(0);
    const line = await embeddingsLine(app, account);
    expect(line?.pending).toBe(1);
    expect(line?.lastError).toMatch(/Storage limit reached/);
    // It is not looked at again before its retry time.
    standIn.requests.length = 0;
    await settle(indexer);
    expect(standIn.requests).toHaveLength(0);
  });

  it('replaces every vector when the model changes', async () => {
    const first = await embeddingRuntime();
    const account = await newAccount(plain.app);
    const accountId = await accountIdOf(plain, account.userId);
    await createEntity(account.req, { name: 'Modelled', observations: ['fact one', 'fact two'] });
    await settle(first.indexer);
    const before = await storedBytes(accountId);
    expect((await vectorsOf(accountId)).every((row) => row.model === MODEL)).toBe(true);
    await first.indexer.stop();

    const second = await embeddingRuntime({ EMBEDDINGS_MODEL: 'stand-in-2' });
    const run = await settle(second.indexer);
    expect(run.failed).toBeUndefined();
    const vectors = await vectorsOf(accountId);
    expect(vectors).toHaveLength(2);
    expect(vectors.every((row) => row.model === 'stand-in-2')).toBe(true);
    // Bounded: the old model's vectors went, the count in storage is the same.
    expect(await storedBytes(accountId)).toBe(before);
    expect(await embeddingsLine(second.app, account)).toMatchObject({
      model: 'stand-in-2',
      embedded: 2,
      pending: 0,
    });
    // The old model's reader finds nothing of its own any more.
    const ids = await observationIdsOf(accountId);
    expect((await first.runtime.embeddings.semanticScores(accountId, 'fact', ids))?.size).toBe(0);
  });

  it('walks the account again when the change log was compacted past its position', async () => {
    const { indexer } = await embeddingRuntime();
    const account = await newAccount(plain.app);
    const accountId = await accountIdOf(plain, account.userId);
    const entity = await createEntity(account.req, {
      name: 'Compacted',
      observations: ['old fact'],
    });
    await settle(indexer);
    // Embeddings off for longer than the retention: the log was compacted meanwhile.
    await account.req({
      method: 'POST',
      url: `/api/entities/${entity.id}/observations`,
      payload: { observations: ['missed fact'] },
    });
    await sql`delete from graph_events where account_id = ${accountId}`.execute(plain.database.db);
    await sql`update accounts set events_compacted_seq = event_seq where id = ${accountId}`.execute(
      plain.database.db,
    );
    await account.req({
      method: 'POST',
      url: `/api/entities/${entity.id}/observations`,
      payload: { observations: ['later fact'] },
    });
    const run = await settle(indexer);
    expect(run.failed).toBeUndefined();
    expect(await vectorsOf(accountId)).toHaveLength(3);
  });

  it("removes an account's vectors with the account", async () => {
    const { runtime, indexer } = await embeddingRuntime();
    const account = await newAccount(plain.app);
    const accountId = await accountIdOf(plain, account.userId);
    await createEntity(account.req, { name: 'Leaving', observations: ['a parting fact'] });
    await settle(indexer);
    expect(await vectorsOf(accountId)).toHaveLength(1);
    const response = await account.req({
      method: 'DELETE',
      url: '/auth/me',
      payload: { password: 'Password123' },
    });
    expect(response.statusCode, response.body).toBe(200);
    await plain.runtime.accounts.purge.idle();
    await runtime.accounts.purge.idle();
    expect(await vectorsOf(accountId)).toHaveLength(0);
    const state = await sql`select 1 from embedding_state where account_id = ${accountId}`.execute(
      plain.database.db,
    );
    expect(state.rows).toHaveLength(0);
  });
});

/** The reads take a space; an account's default space has the account's id (migration 022). */
describe('semantic reads', () => {
  let runtime: Runtime;
  let indexer: EmbeddingIndexer;
  let maya: Account;
  let mayaAccount: string;
  let other: Account;
  let otherAccount: string;

  beforeAll(async () => {
    ({ runtime, indexer } = await embeddingRuntime());
    maya = await newAccount(plain.app);
    mayaAccount = await accountIdOf(plain, maya.userId);
    await createEntity(maya.req, {
      name: 'Maya',
      type: 'person',
      observations: [
        'Maya started a new job at Acme in March',
        'Maya loves hiking in the mountains',
        'Maya adopted a puppy called Biscuit',
      ],
    });
    other = await newAccount(plain.app);
    otherAccount = await accountIdOf(plain, other.userId);
    await createEntity(other.req, {
      name: 'Maya',
      type: 'person',
      observations: ['Maya began her career at Globex', 'Maya walks the trail daily'],
    });
    await settle(indexer);
  });

  it('scores a paraphrase above unrelated observations', async () => {
    const job = await observationId(mayaAccount, 'Maya started a new job at Acme in March');
    const hiking = await observationId(mayaAccount, 'Maya loves hiking in the mountains');
    const scores = await runtime.embeddings.semanticScores(
      mayaAccount,
      'When did Maya begin her new employment?',
      [job, hiking, 'not-a-uuid'],
    );
    expect(scores).not.toBeNull();
    expect(scores!.size).toBe(2);
    expect(scores!.get(job)!).toBeGreaterThan(scores!.get(hiking)!);
    expect(scores!.get(job)!).toBeLessThanOrEqual(1);
    expect(await runtime.embeddings.semanticScores(mayaAccount, 'anything', [])).toEqual(new Map());
  });

  it("never scores or finds another account's observations", async () => {
    const theirs = await observationIdsOf(otherAccount);
    expect(await runtime.embeddings.semanticScores(mayaAccount, 'career', theirs)).toEqual(
      new Map(),
    );
    const found = await runtime.embeddings.semanticCandidates(mayaAccount, 'career began', 50);
    const mine = new Set(await observationIdsOf(mayaAccount));
    expect(found!.length).toBe(3);
    expect(found!.every((candidate) => mine.has(candidate.observationId))).toBe(true);
  });

  it('finds the nearest observations even when they share no word with the question', async () => {
    const job = await observationId(mayaAccount, 'Maya started a new job at Acme in March');
    const found = await runtime.embeddings.semanticCandidates(mayaAccount, 'employment began', 2);
    expect(found).toHaveLength(2);
    expect(found![0]!.observationId).toBe(job);
    expect(found![0]!.score).toBeGreaterThan(found![1]!.score);
  });

  it('answers null when the endpoint fails or is slow, without waiting on it again at once', async () => {
    const ids = await observationIdsOf(mayaAccount);
    const failing = {
      db: plain.database.db,
      embedder: new Embedder(new EmbeddingClient({ url: standIn.url, model: MODEL })),
    };
    standIn.behaviour.failWith = 500;
    expect(await semanticScores(failing, mayaAccount, 'a question never asked', ids)).toBeNull();
    const asked = standIn.requests.length;
    expect(await semanticScores(failing, mayaAccount, 'another new question', ids)).toBeNull();
    expect(standIn.requests.length).toBe(asked);

    standIn.behaviour.failWith = undefined;
    standIn.behaviour.delayMs = 1_000;
    const slow = {
      db: plain.database.db,
      embedder: new Embedder(new EmbeddingClient({ url: standIn.url, model: MODEL }), {
        queryTimeoutMs: 100,
      }),
    };
    const started = Date.now();
    expect(await semanticScores(slow, mayaAccount, 'a slow question', ids)).toBeNull();
    expect(Date.now() - started).toBeLessThan(900);
  });
});

describe('memory spaces', () => {
  it("indexes every space of an account and never finds one space's observations from another", async () => {
    const { runtime, indexer } = await embeddingRuntime();
    const account = await newAccount(plain.app);
    const accountId = await accountIdOf(plain, account.userId);
    const inserted = await sql<{ id: string }>`
      insert into spaces (account_id, slug, name) values (${accountId}, 'work', 'Work') returning id
    `.execute(plain.database.db);
    const work: SpaceAuth = {
      accountId,
      userId: account.userId,
      actor: { kind: 'user', id: account.userId },
      credential: { kind: 'session', id: randomUUID(), expiresAt: null },
      role: 'owner' as const,
      space: { id: inserted.rows[0]!.id, slug: 'work' },
    };
    // The default space (REST without a space) and the work space, both before the first walk.
    await createEntity(account.req, {
      name: 'Maya',
      type: 'person',
      observations: ['Maya adopted a puppy called Biscuit', 'Maya loves hiking in the mountains'],
    });
    await runtime.graph.createEntities(
      work,
      [
        {
          name: 'Maya',
          type: 'person',
          observations: ['Maya started a new job at Acme in March'],
        },
      ],
      { existing: 'reject' },
    );
    let run = await settle(indexer);
    expect(run.failed).toBeUndefined();
    expect(await vectorsOf(accountId)).toHaveLength(3);

    // Later writes in the work space arrive through the change log, in their space.
    await runtime.graph.createEntities(
      work,
      [{ name: 'Acme', type: 'organization', observations: ['Acme hired a new engineer'] }],
      { existing: 'reject' },
    );
    run = await settle(indexer);
    expect(run.failed).toBeUndefined();
    const vectors = await sql<{ space_id: string; observation_id: string }>`
      select space_id, observation_id from observation_embeddings
       where space_id in (${accountId}, ${work.space.id})
    `.execute(plain.database.db);
    const home = await observationIdsIn(accountId);
    const office = await observationIdsIn(work.space.id);
    expect(home).toHaveLength(2);
    expect(office).toHaveLength(2);
    // Each vector sits in its observation's space.
    expect(
      new Set(
        vectors.rows.filter((row) => row.space_id === accountId).map((row) => row.observation_id),
      ),
    ).toEqual(new Set(home));
    expect(
      new Set(
        vectors.rows
          .filter((row) => row.space_id === work.space.id)
          .map((row) => row.observation_id),
      ),
    ).toEqual(new Set(office));

    // Asked in the default space, a question about work finds only that space's observations…
    const fromHome = await runtime.embeddings.semanticCandidates(accountId, 'new job career', 50);
    expect(fromHome?.map((candidate) => candidate.observationId).sort()).toEqual(home);
    expect(await runtime.embeddings.semanticScores(accountId, 'new job', office)).toEqual(
      new Map(),
    );
    // …and in the work space, only the work space's.
    const fromWork = await runtime.embeddings.semanticCandidates(work.space.id, 'puppy hiking', 50);
    expect(fromWork?.map((candidate) => candidate.observationId).sort()).toEqual(office);
    expect((await runtime.embeddings.semanticScores(work.space.id, 'new job', office))?.size).toBe(
      2,
    );
    // The dashboard's line counts the whole account.
    expect(await runtime.embeddings.embeddingStatus(accountId)).toMatchObject({
      embedded: 4,
      pending: 0,
    });
  });

  it('walks every live space after a model change, skipping deleted ones', async () => {
    const first = await embeddingRuntime();
    const account = await newAccount(plain.app);
    const accountId = await accountIdOf(plain, account.userId);
    const spaceIds: string[] = [];
    for (const slug of ['one', 'two', 'gone']) {
      const inserted = await sql<{ id: string }>`
        insert into spaces (account_id, slug, name) values (${accountId}, ${slug}, ${slug}) returning id
      `.execute(plain.database.db);
      const space = { id: inserted.rows[0]!.id, slug };
      spaceIds.push(space.id);
      await first.runtime.graph.createEntities(
        {
          accountId,
          userId: account.userId,
          actor: { kind: 'user', id: account.userId },
          credential: { kind: 'session', id: randomUUID(), expiresAt: null },
          role: 'owner' as const,
          space,
        },
        [
          {
            name: `In ${slug}`,
            type: 'concept',
            observations: [`a ${slug} fact`, `another ${slug} fact`],
          },
        ],
        { existing: 'reject' },
      );
    }
    expect((await settle(first.indexer)).failed).toBeUndefined();
    expect(await vectorsOf(accountId)).toHaveLength(6);
    await first.indexer.stop();
    // The third space is deleted (its purge, not the indexer, removes its rows).
    await sql`update spaces set deleted_at = now() where id = ${spaceIds[2]!}`.execute(
      plain.database.db,
    );

    standIn.requests.length = 0;
    const second = await embeddingRuntime({ EMBEDDINGS_MODEL: 'stand-in-3' });
    expect((await settle(second.indexer)).failed).toBeUndefined();
    const vectors = await vectorsOf(accountId);
    const live = [
      ...(await observationIdsIn(spaceIds[0]!)),
      ...(await observationIdsIn(spaceIds[1]!)),
    ];
    expect(new Set(vectors.map((row) => row.observation_id))).toEqual(new Set(live));
    expect(vectors.every((row) => row.model === 'stand-in-3')).toBe(true);
    expect(
      standIn.requests.flatMap((request) => request.input).filter((text) => text.includes('gone')),
    ).toEqual([]);
    const state = await sql<{ walk_seq: number | null; walk_space: string | null }>`
      select walk_seq, walk_space from embedding_state where account_id = ${accountId}
    `.execute(plain.database.db);
    expect(state.rows[0]).toEqual({ walk_seq: null, walk_space: null });
  });
});
