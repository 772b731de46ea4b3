import { OBSERVATION_PREVIEW_CHARS } from '@engram/shared';
import { afterEach, describe, expect, it } from 'vitest';
import {
  holdChangeLog,
  releaseChangeLog,
  REPLAY_PAGE_BYTES,
} from '../features/history/change-log.service.js';
import {
  accountIdOf,
  as,
  createTestApp,
  manualClock,
  setPlan,
  signUp,
  type TestApp,
} from '../test/harness.js';
import { TestSocket } from '../test/ws-client.js';

// Issue 31, finding 1: the change log grew without bound (every
// observation_added event kept the whole text, nothing removed an event, the
// storage counter ignored the table) and a resume replayed all of it in pages
// bounded only by rows. Now events carry a preview of each text, count
// against storage, are compacted after the plan's retention window (never
// past a reader's hold), and a replay page is bounded in bytes.

const open: TestApp[] = [];
const sockets: TestSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.close();
  await Promise.all(open.splice(0).map((t) => t.close()));
});

async function server(overrides: Parameters<typeof createTestApp>[0] = {}) {
  const clock = manualClock(new Date('2026-11-01T12:00:00Z'));
  const t = await createTestApp(overrides, { now: clock.now });
  open.push(t);
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  return { t, base, clock };
}

async function account(t: TestApp) {
  const { token, user } = await signUp(t.app);
  return { call: as(t.app, token), user, accountId: await accountIdOf(t, user.id) };
}

async function resume(base: string, apiKey: string, lastSeq: number) {
  const socket = await TestSocket.open(base, apiKey);
  sockets.push(socket);
  socket.send('subscribe_to_graph_changes', { lastSeq });
  return socket;
}

async function query<T>(t: TestApp, text: string, params: unknown[]): Promise<T[]> {
  return t.database.withSession((session) => session.query<T>(text, params));
}

/** The account's stored bytes, and what its graph rows and its log count for from scratch. */
async function storage(t: TestApp, accountId: string) {
  const [row] = await query<{
    stored: number;
    graph: number;
    log: number;
    history: number;
    events: number;
  }>(
    t,
    `select (select stored_bytes::float8 from accounts where id = $1) as stored,
            (coalesce((select sum(200 + octet_length(name) + octet_length(type) + octet_length(metadata::text)) from entities where space_id = $1), 0)
           + coalesce((select sum(100 + octet_length(content) + coalesce(octet_length(metadata::text), 0) + 16 * length(terms)) from observations where space_id = $1), 0)
           + coalesce((select sum(100 + octet_length(type)) from relations where space_id = $1), 0))::float8 as graph,
            coalesce((select sum(bytes) from graph_events where account_id = $1), 0)::float8 as log,
            coalesce((select sum(bytes) from graph_history where space_id = $1), 0)::float8 as history,
            (select count(*) from graph_events where account_id = $1)::int as events`,
    [accountId],
  );
  return row!;
}

const text = (i: number, size: number) => `${i} `.padEnd(size, 'x');

async function createEntity(
  call: ReturnType<typeof as>,
  name: string,
  observations: string[] = [],
): Promise<string> {
  const response = await call({
    method: 'POST',
    url: '/api/entities',
    payload: { name, type: 'concept', metadata: {}, observations },
  });
  expect(response.statusCode).toBe(201);
  return response.json<{ id: string }>().id;
}

describe('the change log keeps what a subscriber needs, and counts against storage', () => {
  it('adding and clearing 200 × 10 KB observations grows the log by previews, all of it counted', async () => {
    const { t, base } = await server();
    const { call, user, accountId } = await account(t);
    const id = await createEntity(call, 'notes');
    const live = await resume(base, user.apiKey, 0);
    await live.next((m) => m.type === 'subscribed');

    const big = Array.from({ length: 200 }, (_, i) => text(i, 10_000));
    for (let round = 0; round < 3; round += 1) {
      const added = await call({
        method: 'POST',
        url: `/api/entities/${id}/observations`,
        payload: { observations: big },
      });
      expect(added.statusCode).toBe(201);
      const cleared = await call({
        method: 'PUT',
        url: `/api/entities/${id}`,
        payload: { name: 'notes', type: 'concept', observations: [] },
      });
      expect(cleared.statusCode).toBe(200);
    }

    const counted = await storage(t, accountId);
    // Three rounds of 2 MB of text: the log holds previews (200 characters
    // each), not 6 MB of copies…
    expect(counted.log).toBeLessThan(3 * 200 * (OBSERVATION_PREVIEW_CHARS + 150));
    // …and every byte of it counts: stored bytes are the graph, the log and
    // the history of what was cleared (kept for the plan's window, counted).
    expect(counted.stored).toBe(counted.graph + counted.log + counted.history);
    expect(counted.history).toBeGreaterThan(3 * 200 * 10_000);
    expect(counted.log).toBeGreaterThan(0);

    // A live subscriber gets the same preview, with the whole length.
    const event = await live.next((m) => m.type === 'observation_added');
    const first = (event.payload.observations as Record<string, unknown>[])[0]!;
    expect(first).toMatchObject({
      content: big[0]!.slice(0, 200),
      length: 10_000,
      truncated: true,
    });
    // And a replay from the log sends exactly what was sent live.
    const replay = await resume(base, user.apiKey, 0);
    const replayed = await replay.next((m) => m.type === 'observation_added');
    expect(replayed.payload).toEqual(event.payload);
  });

  it('short texts are kept whole, and characters outside the BMP are never split', async () => {
    const { t } = await server();
    const { call, accountId } = await account(t);
    const emoji = '😀'.repeat(OBSERVATION_PREVIEW_CHARS + 5);
    for (const observation of ['fits', emoji]) {
      const id = await createEntity(call, observation.slice(0, 10));
      await call({
        method: 'POST',
        url: `/api/entities/${id}/observations`,
        payload: { observations: [observation] },
      });
    }
    const page = await t.runtime.history.changesAfter({ accountId }, 0, 100);
    const added = page.events.filter((event) => event.type === 'observation_added');
    const [short, wide] = added.map((event) =>
      event.type === 'observation_added' ? event.payload.observations[0]! : undefined,
    );
    expect(short).toEqual({ id: expect.any(String), content: 'fits' });
    expect(wide).toMatchObject({
      content: '😀'.repeat(OBSERVATION_PREVIEW_CHARS),
      length: OBSERVATION_PREVIEW_CHARS + 5,
      truncated: true,
    });
  });

  it('a delete passes at the storage limit even though its own event is logged', async () => {
    const { t } = await server();
    const { call, accountId } = await account(t);
    const id = await createEntity(call, 'doomed', ['a']);
    // Set the account right at the free plan's limit: only freeing space may pass.
    await query(t, 'update accounts set stored_bytes = 104857600 where id = $1', [accountId]);
    const refused = await call({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'x', type: 't' },
    });
    expect(refused.statusCode).toBe(402);
    const deleted = await call({ method: 'DELETE', url: `/api/entities/${id}` });
    expect(deleted.statusCode).toBeLessThan(300);
  });
});

describe('retention', () => {
  it('compacts events past the plan window, gives their bytes back, and a resume from before them is told to resync', async () => {
    const { t, base, clock } = await server();
    const { call, user, accountId } = await account(t);
    for (let i = 0; i < 5; i += 1) await createEntity(call, `old-${i}`, [text(i, 500)]);
    const before = await storage(t, accountId);
    expect(before.events).toBe(5);

    // Six days on: within the free plan's seven, nothing goes.
    clock.advanceDays(6);
    await t.runtime.history.changeLog.runOnce();
    expect((await storage(t, accountId)).events).toBe(5);

    clock.advanceDays(2);
    await createEntity(call, 'new');
    await t.runtime.history.changeLog.runOnce();
    const after = await storage(t, accountId);
    expect(after.events).toBe(1);
    expect(after.stored).toBe(after.graph + after.log + after.history);

    // From before the window: a clear resync answer, not a partial replay.
    const stale = await resume(base, user.apiKey, 0);
    const answer = await stale.next((m) => m.type === 'resync_required');
    expect(answer.payload).toMatchObject({ lastSeq: 0, reason: 'compacted' });
    expect(stale.ofType('entity_created')).toHaveLength(0);
    // From inside it: the kept event, as before.
    const fresh = await resume(base, user.apiKey, 5);
    const created = await fresh.next((m) => m.type === 'entity_created');
    expect(created).toMatchObject({ seq: 6, payload: { name: 'new' } });
    expect(fresh.ofType('resync_required')).toHaveLength(0);
  });

  it('a resume with nothing kept after its seq still learns that events were compacted', async () => {
    const { t, base, clock } = await server();
    const { call, user } = await account(t);
    for (let i = 0; i < 3; i += 1) await createEntity(call, `e-${i}`);
    clock.advanceDays(8);
    await t.runtime.history.changeLog.runOnce();
    const socket = await resume(base, user.apiKey, 1);
    await socket.next((m) => m.type === 'resync_required');
    // The client that saw everything resumes quietly.
    const current = await resume(base, user.apiKey, 3);
    await current.next((m) => m.type === 'subscribed');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(current.ofType('resync_required')).toHaveLength(0);
  });

  it('a paid plan keeps its longer window; the operator setting replaces every plan’s', async () => {
    const paid = await server();
    const owner = await account(paid.t);
    await setPlan(paid.t, owner.user.id, 'starter');
    await createEntity(owner.call, 'kept');
    paid.clock.advanceDays(8);
    await paid.t.runtime.history.changeLog.runOnce();
    expect((await storage(paid.t, owner.accountId)).events).toBe(1);
    paid.clock.advanceDays(30);
    await paid.t.runtime.history.changeLog.runOnce();
    expect((await storage(paid.t, owner.accountId)).events).toBe(0);

    const short = await server({ CHANGE_LOG_RETENTION_DAYS: '1' });
    const other = await account(short.t);
    await setPlan(short.t, other.user.id, 'team');
    await createEntity(other.call, 'brief');
    short.clock.advanceDays(2);
    await short.t.runtime.history.changeLog.runOnce();
    expect((await storage(short.t, other.accountId)).events).toBe(0);
  });

  it('never passes the position a reader holds', async () => {
    const { t, clock } = await server();
    const { call, accountId } = await account(t);
    for (let i = 0; i < 6; i += 1) await createEntity(call, `held-${i}`);
    await holdChangeLog({ db: t.database.db }, accountId, 'webhook:test', 2);
    clock.advanceDays(8);
    await t.runtime.history.changeLog.runOnce();
    const kept = await query<{ seq: string }>(
      t,
      'select seq::text from graph_events where account_id = $1 order by seq',
      [accountId],
    );
    expect(kept.map((row) => Number(row.seq))).toEqual([3, 4, 5, 6]);
    await releaseChangeLog({ db: t.database.db }, accountId, 'webhook:test');
    await t.runtime.history.changeLog.runOnce();
    expect((await storage(t, accountId)).events).toBe(0);
  });
});

describe('replay', () => {
  it('pages are bounded in bytes as well as rows, and a resume still gets every event in order', async () => {
    const { t, base } = await server();
    const { call, user, accountId } = await account(t);
    // Eight events of ~250 KB each (1,000 previews of 200 characters).
    for (let i = 0; i < 8; i += 1) {
      const id = await createEntity(call, `bulk-${i}`);
      const added = await call({
        method: 'POST',
        url: `/api/entities/${id}/observations`,
        payload: { observations: Array.from({ length: 1_000 }, (_, n) => text(n, 300)) },
      });
      expect(added.statusCode).toBe(201);
    }
    const page = await t.runtime.history.changesAfter({ accountId }, 0, 500);
    const bytes = page.events.map((event) => JSON.stringify(event.payload).length);
    expect(page.events.length).toBeGreaterThan(0);
    expect(page.events.length).toBeLessThan(16);
    // Within the cap, but for the last event, which began below it.
    expect(bytes.slice(0, -1).reduce((sum, size) => sum + size, 0)).toBeLessThan(REPLAY_PAGE_BYTES);

    const socket = await resume(base, user.apiKey, 0);
    await socket.next((m) => m.type === 'observation_added' && m.seq === 16, 20_000);
    const seqs = socket.messages.filter((m) => m.seq !== undefined).map((m) => m.seq);
    expect(seqs).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
  });
});
