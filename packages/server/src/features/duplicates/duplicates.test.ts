import type { DuplicateCandidate, DuplicateList } from '@engram/shared';
import type { InjectOptions } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountIdOf,
  as,
  createTestApp,
  setPlan,
  signUp,
  type TestApp,
} from '../../test/harness.js';
import { DuplicateFinder } from './duplicate-finder.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  // The finder runs when a test says so: each test sees the state it made.
  await t.runtime.duplicates.finder.stop();
});
afterAll(() => t.close());

type Call = ReturnType<typeof as>;

const drain = () => t.runtime.duplicates.finder.drain();

async function account(plan = 'team') {
  const { token, user } = await signUp(t.app);
  await setPlan(t, user.id, plan);
  return { call: as(t.app, token), token, user, accountId: await accountIdOf(t, user.id) };
}

async function create(
  call: Call,
  name: string,
  type = 'person',
  observations: string[] = [],
  headers: Record<string, string> = {},
): Promise<string> {
  const response = await call({
    method: 'POST',
    url: '/api/entities',
    headers,
    payload: { name, type, observations },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string }>().id;
}

async function relate(call: Call, from: string, to: string, type = 'knows') {
  const response = await call({
    method: 'POST',
    url: '/api/relations',
    payload: { fromEntityId: from, toEntityId: to, type },
  });
  expect(response.statusCode, response.body).toBe(201);
}

async function list(call: Call, query = 'limit=100', headers: Record<string, string> = {}) {
  const response = await call({ method: 'GET', url: `/api/duplicates?${query}`, headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<DuplicateList>();
}

const namesOf = (candidate: DuplicateCandidate) =>
  candidate.entities
    .map((entity) => entity.name)
    .sort()
    .join(' | ');

const pairNames = (answer: DuplicateList) => answer.candidates.map(namesOf);

function post(call: Call, path: string, entityIds: unknown, headers: Record<string, string> = {}) {
  return call({
    method: 'POST',
    url: `/api/duplicates/${path}`,
    headers,
    payload: { entityIds },
  } satisfies InjectOptions);
}

describe('GET /api/duplicates', () => {
  it('proposes likely duplicates best first with readable reasons, and leaves hard negatives out', async () => {
    const { call } = await account();
    const ids: Record<string, string> = {};
    const entities: [string, string][] = [
      ['Ada Lovelace', 'person'],
      ['ada  lovelace', 'person'],
      ['A. Lovelace', 'person'],
      ['Ada Smith', 'person'],
      ['Postgres', 'technology'],
      ['PostgreSQL', 'technology'],
      ['Java', 'technology'],
      ['JavaScript', 'technology'],
      ['Upper Silver Lake', 'place'],
      ['Lower Silver Lake', 'place'],
      ['Kafka Streams v1', 'technology'],
      ['Kafka Streams v2', 'technology'],
      ['Apple', 'organization'],
      ['apple (fruit)', 'food'],
      ['apple', 'food'],
      ['Acme', 'organization'],
      ['Acme Inc.', 'company'],
      ['Kubernetes', 'technology'],
      ['Kuberntes', 'technology'],
    ];
    for (const [name, type] of entities) ids[name] = await create(call, name, type);

    const before = await list(call);
    expect(before).toEqual({ candidates: [], nextCursor: null, upToDate: false });
    await drain();
    const answer = await list(call);
    expect(answer.upToDate).toBe(true);
    const pairs = pairNames(answer);
    expect(pairs).toEqual(
      expect.arrayContaining([
        'Ada Lovelace | ada  lovelace',
        'A. Lovelace | Ada Lovelace',
        'A. Lovelace | ada  lovelace',
        'PostgreSQL | Postgres',
        'Acme | Acme Inc.',
        'Kubernetes | Kuberntes',
      ]),
    );
    for (const negative of [
      'Ada Lovelace | Ada Smith',
      'Java | JavaScript',
      'Lower Silver Lake | Upper Silver Lake',
      'Kafka Streams v1 | Kafka Streams v2',
      'Apple | apple (fruit)',
      'Apple | apple',
      'apple | apple (fruit)',
    ]) {
      expect(pairs).not.toContain(negative);
    }

    const scores = answer.candidates.map((candidate) => candidate.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(namesOf(answer.candidates[0]!)).toBe('Ada Lovelace | ada  lovelace');
    for (const candidate of answer.candidates) {
      expect(candidate.score).toBeGreaterThanOrEqual(0);
      expect(candidate.score).toBeLessThanOrEqual(1);
      expect(candidate.entities).toHaveLength(2);
      const [a, b] = candidate.entities.map((entity) => entity.id).sort();
      expect(candidate.id).toBe(`${a}_${b}`);
    }
    const byPair = new Map(answer.candidates.map((candidate) => [namesOf(candidate), candidate]));
    expect(byPair.get('Ada Lovelace | ada  lovelace')!.reasons).toEqual([
      'same name but for case and spacing',
      'same type',
    ]);
    expect(byPair.get('A. Lovelace | Ada Lovelace')!.reasons).toEqual([
      'one name is an abbreviation of the other',
      'same type',
    ]);
    expect(byPair.get('Kubernetes | Kuberntes')!.reasons).toContain('names differ by one typo');
    expect(byPair.get('Acme | Acme Inc.')!.reasons).toEqual([
      'same name but for a company suffix',
      'same type',
    ]);
    expect(byPair.get('Ada Lovelace | ada  lovelace')!.entities).toEqual(
      expect.arrayContaining([
        {
          id: ids['Ada Lovelace'],
          name: 'Ada Lovelace',
          type: 'person',
          observationsCount: 0,
          relationsCount: 0,
        },
      ]),
    );
  });

  it('counts shared neighbours and near-identical observations, and says so', async () => {
    const { call } = await account();
    const grace = await create(call, 'Grace Hopper', 'person', [
      'Invented the first compiler.',
      'Rear admiral',
    ]);
    const hopper = await create(call, 'G. Hopper', 'person', ['invented the  first compiler']);
    await create(call, 'Alan Turing', 'person');
    await create(call, 'A. Turing', 'person');
    for (const name of ['US Navy', 'COBOL']) {
      const neighbour = await create(call, name, 'organization');
      await relate(call, grace, neighbour);
      await relate(call, neighbour, hopper);
    }
    await drain();
    const answer = await list(call);
    const byPair = new Map(answer.candidates.map((candidate) => [namesOf(candidate), candidate]));
    const supported = byPair.get('G. Hopper | Grace Hopper')!;
    expect(supported.reasons).toEqual([
      'one name is an abbreviation of the other',
      'same type',
      '2 shared neighbours',
      '1 shared observation',
    ]);
    expect(supported.score).toBeGreaterThan(byPair.get('A. Turing | Alan Turing')!.score);
    expect(namesOf(answer.candidates[0]!)).toBe('G. Hopper | Grace Hopper');
    expect(supported.entities.find((entity) => entity.id === grace)).toMatchObject({
      observationsCount: 2,
      relationsCount: 2,
    });
  });

  it("compares an entity's aliases like its name, for the finder and for a create", async () => {
    const { call } = await account();
    const db = await create(call, 'Postgres', 'technology');
    const renamed = await call({
      method: 'PUT',
      url: `/api/entities/${db}`,
      payload: { name: 'Postgres', type: 'technology', aliases: ['PostgreSQL Database'] },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    await create(call, 'Kafka', 'technology');
    const other = await create(call, 'postgresql  database', 'technology');
    await drain();
    const found = await list(call);
    expect(pairNames(found)).toEqual(['Postgres | postgresql  database']);
    expect(found.candidates[0]!.entities.map((entity) => entity.id).sort()).toEqual(
      [db, other].sort(),
    );

    const created = await call({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'PostgreSQL database.', type: 'technology' },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(
      created
        .json<{ possibleDuplicates: { name: string }[] }>()
        .possibleDuplicates.map((entity) => entity.name)
        .sort(),
    ).toEqual(['Postgres', 'postgresql  database']);
  });

  it('pages with the cursor: every candidate once, in order', async () => {
    const { call } = await account();
    const people = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Katherine Johnson'];
    for (const name of people) {
      const [first, last] = name.split(' ') as [string, string];
      await create(call, name);
      await create(call, name.toLowerCase());
      await create(call, `${first[0]}. ${last}`);
    }
    await drain();
    const all = (await list(call)).candidates;
    expect(all.length).toBe(people.length * 3);
    const seen: DuplicateCandidate[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: DuplicateList = await list(
        call,
        `limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(page.candidates.length).toBeLessThanOrEqual(5);
      seen.push(...page.candidates);
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(Math.ceil(all.length / 5));
    expect(seen.map((candidate) => candidate.id)).toEqual(all.map((candidate) => candidate.id));
    // The default page is 20.
    expect((await list(call, '')).candidates).toHaveLength(Math.min(20, all.length));
  });

  it('is in the OpenAPI document, with its answers', () => {
    const paths = (t.app.swagger() as { paths: Record<string, Record<string, unknown>> }).paths;
    expect(Object.keys(paths['/api/duplicates']!)).toEqual(['get']);
    expect(paths['/api/duplicates/dismiss']).toHaveProperty('post.responses.204');
    expect(paths['/api/duplicates/undismiss']).toHaveProperty('post.responses.403');
  });

  it('refuses bad input naming the field', async () => {
    const { call } = await account();
    for (const [query, field] of [
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['limit=abc', 'query.limit'],
      ['limit=2.5', 'query.limit'],
      ['cursor=not-a-cursor!', 'query.cursor'],
      [`cursor=${Buffer.from('{"s":2}').toString('base64url')}`, 'query.cursor'],
    ] as const) {
      const response = await call({ method: 'GET', url: `/api/duplicates?${query}` });
      expect(response.statusCode, query).toBe(400);
      expect(response.json<{ details: { field: string }[] }>().details[0]!.field).toBe(field);
    }
    const a = await create(call, 'Ada Lovelace');
    for (const body of [{}, { entityIds: [a] }, { entityIds: [a, a] }, { entityIds: 'x' }]) {
      const response = await call({
        method: 'POST',
        url: '/api/duplicates/dismiss',
        payload: body,
      });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json<{ details: { field: string }[] }>().details[0]!.field).toMatch(
        /^body\.entityIds/,
      );
    }
    expect((await post(call, 'dismiss', [a, 'not-a-uuid'])).statusCode).toBe(404);
  });
});

describe('dismissing', () => {
  it('dismiss hides the pair, either way round; undismiss brings it back', async () => {
    const { call } = await account();
    const a = await create(call, 'Ada Lovelace');
    const b = await create(call, 'A. Lovelace');
    await create(call, 'ada lovelace');
    await drain();
    expect(pairNames(await list(call))).toContain('A. Lovelace | Ada Lovelace');

    expect((await post(call, 'dismiss', [a, b])).statusCode).toBe(204);
    expect((await post(call, 'dismiss', [b, a])).statusCode).toBe(204);
    const dismissed = pairNames(await list(call));
    expect(dismissed).not.toContain('A. Lovelace | Ada Lovelace');
    expect(dismissed).toContain('Ada Lovelace | ada lovelace');
    // Not proposed again when the finder compares the two again (another change to them).
    await call({
      method: 'POST',
      url: `/api/entities/${a}/observations`,
      payload: { observations: ['Wrote the first program'] },
    });
    await drain();
    expect(pairNames(await list(call))).not.toContain('A. Lovelace | Ada Lovelace');

    expect((await post(call, 'undismiss', [b, a])).statusCode).toBe(204);
    expect(pairNames(await list(call))).toContain('A. Lovelace | Ada Lovelace');
    // Nothing to take back is no error.
    expect((await post(call, 'undismiss', [a, b])).statusCode).toBe(204);
  });

  it('a rename brings a dismissed pair back, even renamed back again', async () => {
    const { call } = await account();
    const a = await create(call, 'Grace Hopper');
    const b = await create(call, 'grace hopper');
    await drain();
    expect((await post(call, 'dismiss', [a, b])).statusCode).toBe(204);
    expect(pairNames(await list(call))).toEqual([]);

    const rename = (name: string) =>
      call({ method: 'PUT', url: `/api/entities/${b}`, payload: { name, type: 'person' } });
    expect((await rename('Grace  Hopper')).statusCode).toBe(200);
    // At once, by the names the dismissal holds, before the finder has seen the rename.
    expect(pairNames(await list(call))).toEqual(['Grace  Hopper | Grace Hopper']);
    await drain();
    expect((await rename('grace hopper')).statusCode).toBe(200);
    await drain();
    expect(pairNames(await list(call))).toEqual(['Grace Hopper | grace hopper']);
  });

  it("a deleted entity's pairs go at once", async () => {
    const { call, accountId } = await account();
    const a = await create(call, 'Alan Turing');
    await create(call, 'alan turing');
    await drain();
    expect((await list(call)).candidates).toHaveLength(1);
    expect((await call({ method: 'DELETE', url: `/api/entities/${a}` })).statusCode).toBe(200);
    expect((await list(call)).candidates).toEqual([]);
    await drain();
    const rows = await sql<{ n: number }>`
      select count(*)::int as n from duplicate_pairs where space_id = ${accountId}
    `.execute(t.database.db);
    expect(rows.rows[0]!.n).toBe(0);
  });
});

describe('who may', () => {
  it('a viewer and a read-only key read but get 403 on dismissals; another account gets 404', async () => {
    const owner = await account('team');
    const a = await create(owner.call, 'Ada Lovelace');
    const b = await create(owner.call, 'ada lovelace');
    await drain();

    const email = `viewer-${owner.accountId.slice(0, 8)}@example.com`;
    const invited = await owner.call({
      method: 'POST',
      url: '/api/members/invitations',
      payload: { email, role: 'viewer' },
    });
    expect(invited.statusCode, invited.body).toBe(201);
    const token = new URL(invited.json<{ url: string }>().url).hash.replace('#token=', '');
    const viewer = await signUp(t.app, { email });
    const accepted = await as(
      t.app,
      viewer.token,
    )({
      method: 'POST',
      url: '/api/invitations/accept',
      payload: { token },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    const inAccount = { 'x-engram-account': owner.accountId };
    const asViewer = as(t.app, viewer.token);
    expect((await list(asViewer, 'limit=10', inAccount)).candidates).toHaveLength(1);
    expect((await post(asViewer, 'dismiss', [a, b], inAccount)).statusCode).toBe(403);
    expect((await post(asViewer, 'undismiss', [a, b], inAccount)).statusCode).toBe(403);

    const key = await owner.call({
      method: 'POST',
      url: '/api/keys',
      payload: { name: 'reader', permissions: ['spaces:*:read'] },
    });
    expect(key.statusCode, key.body).toBe(201);
    const reader = as(t.app, key.json<{ apiKey: string }>().apiKey);
    expect((await list(reader)).candidates).toHaveLength(1);
    expect((await post(reader, 'dismiss', [a, b])).statusCode).toBe(403);

    const other = await account('free');
    expect((await post(other.call, 'dismiss', [a, b])).statusCode).toBe(404);
    expect((await post(other.call, 'undismiss', [a, b])).statusCode).toBe(404);
    expect((await list(other.call)).candidates).toEqual([]);
    // Still proposed to its owner: nothing was dismissed.
    expect((await list(owner.call)).candidates).toHaveLength(1);
  });

  it('keeps each space to itself, and a key scoped to a space reaches only it', async () => {
    const { call } = await account('team');
    const work = { 'x-engram-space': 'work' };
    const created = await call({ method: 'POST', url: '/api/spaces', payload: { name: 'work' } });
    expect(created.statusCode, created.body).toBe(201);
    const a = await create(call, 'Ada Lovelace', 'person', [], work);
    const b = await create(call, 'ada lovelace', 'person', [], work);
    await create(call, 'Grace Hopper');
    await create(call, 'grace hopper');
    await drain();
    expect(pairNames(await list(call))).toEqual(['Grace Hopper | grace hopper']);
    expect(pairNames(await list(call, 'limit=10', work))).toEqual(['Ada Lovelace | ada lovelace']);
    expect(pairNames(await list(call, 'limit=10&space=work'))).toEqual([
      'Ada Lovelace | ada lovelace',
    ]);
    // The pair is the work space's: in the default space its entities are not found.
    expect((await post(call, 'dismiss', [a, b])).statusCode).toBe(404);
    expect((await post(call, 'dismiss', [a, b], work)).statusCode).toBe(204);
    expect((await list(call, 'limit=10', work)).candidates).toEqual([]);

    const key = await call({
      method: 'POST',
      url: '/api/keys',
      payload: { name: 'work only', permissions: ['space:work:write'] },
    });
    expect(key.statusCode, key.body).toBe(201);
    const scoped = as(t.app, key.json<{ apiKey: string }>().apiKey);
    expect((await scoped({ method: 'GET', url: '/api/duplicates' })).statusCode).toBe(403);
    expect((await list(scoped, 'limit=10', work)).candidates).toEqual([]);
    expect((await post(scoped, 'undismiss', [a, b], work)).statusCode).toBe(204);
    expect(pairNames(await list(scoped, 'limit=10', work))).toEqual([
      'Ada Lovelace | ada lovelace',
    ]);
  });
});

describe('the background finder', () => {
  it('never holds up a write: writes succeed while it is behind, and it catches up', async () => {
    const { call } = await account();
    await create(call, 'Ada Lovelace');
    await create(call, 'ada lovelace');
    await drain();
    // Behind: the finder does not run while these are written.
    for (let i = 0; i < 30; i++) {
      await create(call, `Person ${i} Example`);
    }
    await create(call, 'Grace Hopper');
    await create(call, 'grace hopper');
    const behind = await list(call);
    expect(behind.upToDate).toBe(false);
    expect(pairNames(behind)).toEqual(['Ada Lovelace | ada lovelace']);
    await drain();
    const caught = await list(call);
    expect(caught.upToDate).toBe(true);
    expect(pairNames(caught).sort()).toEqual([
      'Ada Lovelace | ada lovelace',
      'Grace Hopper | grace hopper',
    ]);
  });

  it('a read that finds its account behind waits for the finder to compare that account', async () => {
    const other = await account();
    await create(other.call, 'Edsger Dijkstra');
    await create(other.call, 'edsger dijkstra');
    const { call } = await account();
    for (let i = 0; i < 30; i++) await create(call, `Person ${i} Example`);
    await create(call, 'Grace Hopper');
    await create(call, 'grace hopper');
    const finder = t.runtime.duplicates.finder;
    // Its first run is a second away: the read comes before it.
    finder.start();
    try {
      const answer = await list(call);
      expect(answer.upToDate).toBe(true);
      expect(pairNames(answer)).toEqual(['Grace Hopper | grace hopper']);
    } finally {
      await finder.stop();
    }
    // The reader waited for its own account only.
    expect(await list(other.call)).toMatchObject({ candidates: [], upToDate: false });
  });

  it('rests after a step only when requests came near it', async () => {
    await drain();
    const { call, accountId } = await account();
    await create(call, 'Mary Somerville');
    await create(call, 'mary somerville');
    // A step per entity; a rest, when taken, is the longest there is (2 s).
    const runWith = async (lastRequestAt: () => number) => {
      const finder = new DuplicateFinder(
        { db: t.database.db, lastRequestAt },
        { chunk: 1, restRatio: 1e9 },
      );
      const started = performance.now();
      try {
        const run = await finder.runOnce();
        expect(run.error).toBeUndefined();
        return performance.now() - started;
      } finally {
        await finder.close();
      }
    };
    // Requests keep coming: two steps, two rests.
    expect(await runWith(() => performance.now())).toBeGreaterThanOrEqual(4_000);
    await sql`update duplicate_state set applied_seq = 0 where account_id = ${accountId}`.execute(
      t.database.db,
    );
    // None for a long while: the steps follow each other at once.
    expect(await runWith(() => -Infinity)).toBeLessThan(2_000);
    expect(pairNames(await list(call))).toEqual(['Mary Somerville | mary somerville']);
  }, 20_000);

  it('runs on its own after writes, and after start on an account it never saw', async () => {
    const { call, accountId } = await account();
    await create(call, 'Katherine Johnson');
    await create(call, 'katherine johnson');
    const finder = t.runtime.duplicates.finder;
    finder.start();
    try {
      await expect
        .poll(async () => pairNames(await list(call)), { timeout: 15_000 })
        .toEqual(['Katherine Johnson | katherine johnson']);
    } finally {
      await finder.stop();
    }
    // As after the migration on an account with entities: no state, no pairs. A scan rebuilds them.
    const db = t.database.db;
    await sql`delete from duplicate_state where account_id = ${accountId}`.execute(db);
    await sql`delete from duplicate_pairs where space_id = ${accountId}`.execute(db);
    await sql`delete from duplicate_names where space_id = ${accountId}`.execute(db);
    expect(await list(call)).toMatchObject({ candidates: [], upToDate: false });
    await drain();
    expect(await list(call)).toMatchObject({
      candidates: [expect.objectContaining({ score: expect.any(Number) })],
      upToDate: true,
    });
  });

  it('scans every entity once when further behind than the account has entities', async () => {
    const { call, accountId } = await account();
    const apiKey = (
      await call({ method: 'POST', url: '/api/keys', payload: { name: 'bulk' } })
    ).json<{ apiKey: string }>().apiKey;
    const auth = await t.runtime.spaces.resolveSpace(
      (await t.runtime.authenticate(apiKey))!,
      'default',
      'write',
      {},
    );
    const names = Array.from({ length: 1_100 }, (_, i) => `Item ${String(i).padStart(4, '0')}`);
    await t.runtime.graph.createEntities(
      auth,
      [...names, 'Ada Lovelace', 'ada lovelace'].map((name) => ({ name, type: 'thing' })),
      { existing: 'reject' },
    );
    // 1,300 relation events on top of 1,102 entity events: more behind than there are entities.
    await t.runtime.graph.createRelationsByName(
      auth,
      Array.from({ length: 1_300 }, (_, i) => ({
        from: names[i % names.length]!,
        to: names[(i * 7 + 1) % names.length]!,
        relationType: i < names.length ? 'links' : 'cites',
      })),
    );
    await drain();
    const answer = await list(call);
    expect(answer.upToDate).toBe(true);
    expect(pairNames(answer)).toContain('Ada Lovelace | ada lovelace');
    const db = t.database.db;
    const state = await sql<{ applied: number; scan: number | null; head: number }>`
      select s.applied_seq::int as applied, s.scan_seq::int as scan, a.event_seq::int as head
        from duplicate_state s join accounts a on a.id = s.account_id
       where s.account_id = ${accountId}
    `.execute(db);
    expect(state.rows).toEqual([
      { applied: state.rows[0]!.head, scan: null, head: expect.any(Number) },
    ]);
    const stored = await sql<{ n: number }>`
      select count(*)::int as n from duplicate_names where space_id = ${auth.space.id}
    `.execute(db);
    expect(stored.rows[0]!.n).toBe(1_102);
  });

  it("shares a run between accounts: a large import does not hold another's pair to the next run", async () => {
    const small = await account();
    await create(small.call, 'Ada Lovelace');
    await drain();
    // Never seen by the finder, so first in line, and more than a whole run's worth of entities.
    const large = await account();
    const apiKey = (
      await large.call({ method: 'POST', url: '/api/keys', payload: { name: 'bulk' } })
    ).json<{ apiKey: string }>().apiKey;
    const auth = await t.runtime.spaces.resolveSpace(
      (await t.runtime.authenticate(apiKey))!,
      'default',
      'write',
      {},
    );
    await t.runtime.graph.createEntities(
      auth,
      Array.from({ length: 1_200 }, (_, i) => ({ name: `Crate ${i}`, type: 'thing' })),
      { existing: 'reject' },
    );
    await create(small.call, 'ada lovelace');
    const run = await t.runtime.duplicates.finder.runOnce();
    expect(run.error).toBeUndefined();
    expect(run.more).toBe(true);
    expect(await list(small.call)).toMatchObject({ upToDate: true });
    expect(pairNames(await list(small.call))).toEqual(['Ada Lovelace | ada lovelace']);
    await drain();
  });

  it('scans again when the change log was compacted past its position, dropping what went meanwhile', async () => {
    const { call, accountId } = await account();
    const gone = await create(call, 'Alan Turing');
    await create(call, 'alan turing');
    await create(call, 'Ada Lovelace');
    await drain();
    expect((await list(call)).candidates).toHaveLength(1);
    await call({ method: 'DELETE', url: `/api/entities/${gone}` });
    await create(call, 'ada lovelace');
    // The events the finder has not read are compacted away.
    const db = t.database.db;
    await sql`delete from graph_events where account_id = ${accountId}`.execute(db);
    await sql`update accounts set events_compacted_seq = event_seq where id = ${accountId}`.execute(
      db,
    );
    await drain();
    expect(pairNames(await list(call))).toEqual(['Ada Lovelace | ada lovelace']);
    const names = await sql<{ n: number }>`
      select count(*)::int as n from duplicate_names where space_id = ${accountId} and entity_id = ${gone}
    `.execute(db);
    expect(names.rows[0]!.n).toBe(0);
  });
});
