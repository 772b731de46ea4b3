import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, callToolError } from '../../test/mcp-client.js';
import { createTestApp, signUpAgent, type TestApp } from '../../test/harness.js';
import * as changeRepo from './changes.repository.js';

/**
 * Writes whose last statement stages its own events (decision 034): the
 * append takes the events from the database, so it guards by itself what the
 * server can no longer check between the statement and the COMMIT.
 */

let t: TestApp;
let baseUrl: string;
let clock = new Date('2026-03-01T12:00:00.000Z');
const clients: Client[] = [];

beforeAll(async () => {
  t = await createTestApp({}, { now: () => clock });
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t.close();
});

async function account() {
  const { mcp, accountId } = await signUpAgent(t, baseUrl);
  clients.push(mcp);
  // The default space's id is its account's.
  return { mcp, accountId, spaceId: accountId };
}

const changes = async (accountId: string) =>
  (await t.runtime.history.changesAfter({ accountId }, 0, 100)).events;

const historyRows = async (spaceId: string) =>
  Number(
    (
      await sql<{
        n: string;
      }>`select count(*) as n from graph_history where space_id = ${spaceId}`.execute(t.database.db)
    ).rows[0]!.n,
  );

describe('a write in one message', () => {
  it('logs the events its statements staged, in order, and records nothing for a call that changed nothing', async () => {
    const { mcp, accountId, spaceId } = await account();
    await callTool(mcp, 'create_entities', {
      entities: [
        { name: 'Ada', entityType: 'person', observations: ['wrote the first program'] },
        { name: 'Babbage', entityType: 'person', observations: [] },
      ],
    });
    await callTool(mcp, 'add_observations', {
      observations: [
        { entityName: 'Babbage', contents: ['designed the engine', 'x'.repeat(250)] },
        { entityName: 'Ada', contents: ['wrote the first program', 'translated Menabrea'] },
      ],
    });
    const logged = await changes(accountId);
    expect(logged.map((event) => [event.seq, event.type])).toEqual([
      [1, 'entity_created'],
      [2, 'entity_created'],
      [3, 'observation_added'],
      [4, 'observation_added'],
    ]);
    expect(logged.slice(0, 2).map((event) => event.payload)).toEqual([
      expect.objectContaining({ name: 'Ada', type: 'person' }),
      expect.objectContaining({ name: 'Babbage', type: 'person' }),
    ]);
    const added = logged.slice(2).map((event) => event.payload as Record<string, unknown>);
    // One event per entity that gained something, its known text left out.
    expect(added).toContainEqual({
      entityId: expect.any(String),
      observations: [{ id: expect.any(String), content: 'translated Menabrea' }],
    });
    expect(added).toContainEqual({
      entityId: expect.any(String),
      observations: [
        { id: expect.any(String), content: 'designed the engine' },
        { id: expect.any(String), content: 'x'.repeat(200), length: 250, truncated: true },
      ],
    });

    const before = await historyRows(spaceId);
    const again = await callTool(mcp, 'add_observations', {
      observations: [{ entityName: 'Ada', contents: ['translated Menabrea'] }],
    });
    expect(again).toEqual({ results: [{ entityName: 'Ada', addedObservations: [] }] });
    expect(await changes(accountId)).toHaveLength(4);
    expect(await historyRows(spaceId)).toBe(before);
    // The next change still takes the next seq.
    await callTool(mcp, 'add_observations', {
      observations: [{ entityName: 'Ada', contents: ['met Somerville'] }],
    });
    expect((await changes(accountId)).at(-1)).toMatchObject({ seq: 5, type: 'observation_added' });
  });

  it('creates relations by name in one statement: its events staged, every missing end refused, repeats skipped', async () => {
    const { mcp, accountId, spaceId } = await account();
    await callTool(mcp, 'create_entities', {
      entities: ['Ada', 'Babbage', 'Menabrea'].map((name) => ({
        name,
        entityType: 'person',
        observations: [],
      })),
    });
    const created = await callTool(mcp, 'create_relations', {
      relations: [
        { from: 'Ada', to: 'Babbage', relationType: 'worked with' },
        { from: 'Ada', to: 'Menabrea', relationType: 'translated' },
        { from: 'Ada', to: 'Babbage', relationType: 'worked with' },
      ],
    });
    expect(created).toEqual({
      relations: [
        { from: 'Ada', to: 'Babbage', relationType: 'worked with' },
        { from: 'Ada', to: 'Menabrea', relationType: 'translated' },
      ],
    });
    const ids = new Map(
      (
        await t.database.db
          .selectFrom('entities')
          .select(['id', 'name'])
          .where('space_id', '=', spaceId)
          .execute()
      ).map((row) => [row.name, row.id]),
    );
    const logged = (await changes(accountId)).slice(3);
    expect(logged.map((event) => [event.seq, event.type])).toEqual([
      [4, 'relation_created'],
      [5, 'relation_created'],
    ]);
    expect(logged[1]!.payload).toEqual({
      relationId: expect.any(String),
      id: (logged[1]!.payload as { relationId: string }).relationId,
      fromEntityId: ids.get('Ada'),
      toEntityId: ids.get('Menabrea'),
      relationType: 'translated',
    });

    const missing = await callToolError(mcp, 'create_relations', {
      relations: [
        { from: 'Ada', to: 'Lovelace', relationType: 'is' },
        { from: 'Somerville', to: 'Babbage', relationType: 'knew' },
        { from: 'Babbage', to: 'Menabrea', relationType: 'met' },
      ],
    });
    expect(missing).toBe(
      'Entity not found: "Lovelace", "Somerville". Create them with create_entities first.',
    );
    const before = await historyRows(spaceId);
    const again = await callTool(mcp, 'create_relations', {
      relations: [{ from: 'Ada', to: 'Babbage', relationType: 'worked with' }],
    });
    expect(again).toEqual({ relations: [] });
    expect(await changes(accountId)).toHaveLength(5);
    expect(await historyRows(spaceId)).toBe(before);
    const degrees = await t.database.db
      .selectFrom('entity_degrees')
      .select(['entity_id', 'degree'])
      .where('space_id', '=', spaceId)
      .execute();
    expect(Object.fromEntries(degrees.map((row) => [row.entity_id, row.degree]))).toEqual({
      [ids.get('Ada')!]: 2,
      [ids.get('Babbage')!]: 1,
      [ids.get('Menabrea')!]: 1,
    });
  });

  it('deletes relations by name in one statement: its events staged, unknown ones skipped', async () => {
    const { mcp, accountId, spaceId } = await account();
    await callTool(mcp, 'create_entities', {
      entities: ['Ada', 'Babbage'].map((name) => ({
        name,
        entityType: 'person',
        observations: [],
      })),
    });
    await callTool(mcp, 'create_relations', {
      relations: [
        { from: 'Ada', to: 'Babbage', relationType: 'worked with' },
        { from: 'Babbage', to: 'Ada', relationType: 'admired' },
      ],
    });
    const created = (await changes(accountId)).slice(2);
    await callTool(mcp, 'delete_relations', {
      relations: [
        { from: 'Babbage', to: 'Ada', relationType: 'admired' },
        { from: 'Ada', to: 'Babbage', relationType: 'never met' },
        { from: 'Ada', to: 'Lovelace', relationType: 'is' },
        { from: 'Babbage', to: 'Ada', relationType: 'admired' },
      ],
    });
    const logged = await changes(accountId);
    expect(logged.slice(4).map((event) => [event.seq, event.type, event.payload])).toEqual([
      [5, 'relation_deleted', created[1]!.payload],
    ]);
    const degrees = await t.database.db
      .selectFrom('entity_degrees')
      .select('degree')
      .where('space_id', '=', spaceId)
      .execute();
    expect(degrees.map((row) => row.degree)).toEqual([1, 1]);

    const before = await historyRows(spaceId);
    await callTool(mcp, 'delete_relations', {
      relations: [{ from: 'Babbage', to: 'Ada', relationType: 'admired' }],
    });
    expect(await changes(accountId)).toHaveLength(5);
    expect(await historyRows(spaceId)).toBe(before);
  });

  it('deletes observations by name in one statement: one event per entity that lost some, in the order named', async () => {
    const { mcp, accountId, spaceId } = await account();
    await callTool(mcp, 'create_entities', {
      entities: [
        { name: 'Ada', entityType: 'person', observations: ['a', 'b', 'c'] },
        { name: 'Babbage', entityType: 'person', observations: ['d', 'e'] },
        { name: 'Menabrea', entityType: 'person', observations: ['f'] },
      ],
    });
    await callTool(mcp, 'delete_observations', {
      deletions: [
        { entityName: 'Babbage', observations: [' d ', 'never said'] },
        { entityName: 'Lovelace', observations: ['a'] },
        { entityName: 'Menabrea', observations: ['not this'] },
        { entityName: 'Ada', observations: ['a', 'c'] },
      ],
    });
    const logged = (await changes(accountId)).slice(3);
    expect(logged.map((event) => [event.seq, event.type, event.payload])).toEqual([
      [4, 'entity_updated', expect.objectContaining({ name: 'Babbage', type: 'person' })],
      [5, 'entity_updated', expect.objectContaining({ name: 'Ada', type: 'person' })],
    ]);
    const opened = await callTool<{ entities: { name: string; observations: string[] }[] }>(
      mcp,
      'open_nodes',
      { names: ['Ada', 'Babbage', 'Menabrea'] },
    );
    expect(opened.entities.map((entity) => [entity.name, entity.observations])).toEqual([
      ['Ada', ['b']],
      ['Babbage', ['e']],
      ['Menabrea', ['f']],
    ]);
    const counts = await t.database.db
      .selectFrom('entities')
      .select(['name', 'observations_count'])
      .where('space_id', '=', spaceId)
      .orderBy('name')
      .execute();
    expect(counts.map((row) => row.observations_count)).toEqual([1, 1, 1]);

    const before = await historyRows(spaceId);
    await callTool(mcp, 'delete_observations', {
      deletions: [{ entityName: 'Ada', observations: ['a'] }],
    });
    expect(await changes(accountId)).toHaveLength(5);
    expect(await historyRows(spaceId)).toBe(before);
  });

  it('deletes entities by name in one statement: their events staged in the order named, their rows and counts gone', async () => {
    const { mcp, accountId, spaceId } = await account();
    await callTool(mcp, 'create_entities', {
      entities: [
        { name: 'Ada', entityType: 'person', observations: ['wrote'] },
        { name: 'Babbage', entityType: 'person', observations: [] },
        { name: 'Engine', entityType: 'machine', observations: ['computed'] },
      ],
    });
    await callTool(mcp, 'create_relations', {
      relations: [
        { from: 'Ada', to: 'Engine', relationType: 'programmed' },
        { from: 'Babbage', to: 'Engine', relationType: 'designed' },
        { from: 'Ada', to: 'Babbage', relationType: 'knew' },
      ],
    });
    await callTool(mcp, 'delete_entities', {
      entityNames: ['Engine', 'Lovelace', 'Ada', 'Engine'],
    });
    const logged = (await changes(accountId)).slice(6);
    expect(
      logged.map((event) => [event.seq, event.type, (event.payload as { name: string }).name]),
    ).toEqual([
      [7, 'entity_deleted', 'Engine'],
      [8, 'entity_deleted', 'Ada'],
    ]);
    const rows = async (
      table: 'observations' | 'relations' | 'entity_degrees' | 'entity_type_counts',
    ) => t.database.db.selectFrom(table).selectAll().where('space_id', '=', spaceId).execute();
    expect(await rows('observations')).toEqual([]);
    expect(await rows('relations')).toEqual([]);
    expect((await rows('entity_degrees')).map((row) => row.degree)).toEqual([0]);
    expect((await rows('entity_type_counts')).map((row) => [row.type, row.count])).toEqual([
      ['person', 1],
    ]);

    const before = await historyRows(spaceId);
    await callTool(mcp, 'delete_entities', { entityNames: ['Ada'] });
    expect(await changes(accountId)).toHaveLength(8);
    expect(await historyRows(spaceId)).toBe(before);
  });

  it('never stamps a call before the one it follows, whatever the clock says', async () => {
    const { mcp, accountId } = await account();
    clock = new Date('2026-03-01T12:00:00.000Z');
    await callTool(mcp, 'create_entities', {
      entities: [{ name: 'Ada', entityType: 'person', observations: [] }],
    });
    clock = new Date('2026-03-01T11:00:00.000Z');
    await callTool(mcp, 'add_observations', {
      observations: [{ entityName: 'Ada', contents: ['a clock set back'] }],
    });
    clock = new Date('2026-03-01T12:30:00.000Z');
    await callTool(mcp, 'add_observations', {
      observations: [{ entityName: 'Ada', contents: ['a clock put right'] }],
    });
    expect((await changes(accountId)).map((event) => event.at)).toEqual([
      '2026-03-01T12:00:00.000Z',
      '2026-03-01T12:00:00.000Z',
      '2026-03-01T12:30:00.000Z',
    ]);
  });

  it.each(['Space', 'Account'] as const)(
    'refuses in the append itself a write whose lock found its %s deleted, and rolls it back',
    async (gone) => {
      const { accountId, spaceId } = await account();
      await sql`update ${sql.table(gone === 'Space' ? 'spaces' : 'accounts')}
                   set deleted_at = now() where id = ${gone === 'Space' ? spaceId : accountId}`.execute(
        t.database.db,
      );
      // The server reads the lock's answer only after this append has left with its COMMIT.
      const refused = t.database.db.transaction().execute(async (trx) => {
        await changeRepo.lockAccountForWrite(trx, accountId, spaceId);
        await sql`insert into graph_daily (account_id, day, entities_created)
                  values (${accountId}, '2026-01-01', 1)`.execute(trx);
        const sent = await changeRepo.sendAppend(
          trx,
          accountId,
          spaceId,
          [{ type: 'entity_deleted', payload: { entityId: spaceId } }],
          { actor: { kind: 'test' }, at: clock },
          {
            maxEntities: null,
            maxStorageBytes: null,
            maxObservationsPerEntity: null,
            largestObservations: 0,
          },
        );
        return sent.answer;
      });
      await expect(refused).rejects.toMatchObject({ code: changeRepo.GONE, message: gone });
      expect(await changes(accountId)).toEqual([]);
      const written = await sql<{ n: string }>`
        select count(*) as n from graph_daily where account_id = ${accountId} and day = '2026-01-01'
      `.execute(t.database.db);
      expect(Number(written.rows[0]!.n)).toBe(0);
    },
  );
});
