import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngramError, type Engram } from '../src/index.js';
import { clientFor, newAccount, startServer, type TestServer } from './server.js';

let server: TestServer;
let engram: Engram;
/** The same person's session (`keys`, deleting a space). */
let session: Engram;

beforeAll(async () => {
  server = await startServer();
  const owner = await newAccount(server, 'team');
  engram = clientFor(server, owner.apiKey);
  session = clientFor(server, owner.token);
});
afterAll(() => server.close());

describe('entities and relations', () => {
  it('round-trips create, get, update, observations, delete and revert', async () => {
    const ada = await engram.entities.create({
      name: 'Ada Lovelace',
      type: 'person',
      metadata: { born: 1815 },
      observations: ['Wrote the first program', { content: 'Worked with Babbage' }],
    });
    expect(ada).toMatchObject({ name: 'Ada Lovelace', type: 'person', metadata: { born: 1815 } });
    expect(ada.observations.map((o) => o.content)).toEqual([
      'Wrote the first program',
      'Worked with Babbage',
    ]);

    const updated = await engram.entities.update(ada.id, {
      name: 'Ada King',
      type: 'person',
      aliases: ['Ada Lovelace'],
    });
    expect(updated).toMatchObject({ name: 'Ada King', aliases: ['Ada Lovelace'] });

    const added = await engram.entities.addObservations(ada.id, ['Countess of Lovelace']);
    expect(added.added.map((o) => o.content)).toEqual(['Countess of Lovelace']);
    expect((await engram.entities.get(ada.id)).observationsCount).toBe(3);

    const engine = await engram.entities.create({ name: 'Analytical Engine', type: 'machine' });
    const relation = await engram.relations.create({
      fromEntityId: ada.id,
      toEntityId: engine.id,
      type: 'programmed',
    });
    expect(relation).toMatchObject({ fromEntityId: ada.id, toEntityId: engine.id });
    expect((await engram.relations.update(relation.id, { type: 'wrote_for' })).type).toBe(
      'wrote_for',
    );
    const around = await engram.relations.neighbors(ada.id);
    expect(around.entities.map((e) => e.name).sort()).toEqual(['Ada King', 'Analytical Engine']);

    const history = await engram.history(ada.id).toArray();
    expect(history.length).toBeGreaterThanOrEqual(3);
    expect((await engram.entities.authors(ada.id)).createdBy).not.toBeNull();

    const deleted = await engram.entities.delete(engine.id);
    expect(deleted.success).toBe(true);
    await expect(engram.entities.get(engine.id)).rejects.toMatchObject({ status: 404 });
    await engram.changes.revert(deleted.callSeq!);
    expect((await engram.entities.get(engine.id)).name).toBe('Analytical Engine');
    expect((await engram.changes.list({ limit: 2 }).toArray()).length).toBeGreaterThan(2);
  });

  it('iterates every entity across pages by nextCursor, with filters', async () => {
    const space = engram.withSpace(`pages-${randomUUID().slice(0, 8)}`, { create: true });
    for (let i = 0; i < 7; i += 1) await space.entities.create({ name: `Star ${i}`, type: 'star' });
    await space.entities.create({ name: 'Moon', type: 'moon' });

    const names: string[] = [];
    for await (const entity of space.entities.list({ types: ['star'], limit: 3 })) {
      names.push(entity.name);
    }
    expect(names.sort()).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `Star ${i}`));

    const pages = [];
    for await (const page of space.entities.list({ types: 'star', limit: 3 }).pages()) {
      pages.push(page);
    }
    expect(pages.map((page) => page.entities.length)).toEqual([3, 3, 1]);
    expect(pages[0]!.nextCursor).toEqual(expect.any(String));

    const types = await space.entities.types({ limit: 1 }).toArray();
    expect(types.map((t) => t.type)).toEqual(['star', 'moon']);
  });

  it('iterates relations by nextOffset', async () => {
    const space = engram.withSpace(`rel-${randomUUID().slice(0, 8)}`, { create: true });
    const hub = await space.entities.create({ name: 'Hub', type: 'node' });
    for (let i = 0; i < 5; i += 1) {
      const leaf = await space.entities.create({ name: `Leaf ${i}`, type: 'node' });
      await space.relations.create({ fromEntityId: hub.id, toEntityId: leaf.id, type: 'links' });
    }
    const pages = [];
    for await (const page of space.relations.list({ limit: 2 }).pages()) pages.push(page);
    expect(pages.map((page) => page.relations.length)).toEqual([2, 2, 1]);
    expect(await space.relations.list({ limit: 2 }).toArray()).toHaveLength(5);
  });
});

describe('errors', () => {
  it('a 404 is an EngramError with the server status, code and message', async () => {
    const error = await engram.entities.get(randomUUID()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngramError);
    expect(error).toMatchObject({ status: 404, code: 'NOT_FOUND', name: 'EngramError' });
    expect((error as EngramError).message).toMatch(/not found/i);
  });

  it('a 400 carries the fields the server refused as details', async () => {
    const error = (await engram.entities
      .create({ name: '', type: 'person' })
      .catch((e: unknown) => e)) as EngramError;
    expect(error).toBeInstanceOf(EngramError);
    expect(error.status).toBe(400);
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'body.name' })]),
    );
  });

  it('a bad key is 401 and a 409 says CONFLICT', async () => {
    const stranger = clientFor(server, 'eng_key_nope', { retries: false });
    await expect(stranger.entities.list().toArray()).rejects.toMatchObject({
      status: 401,
      code: 'UNAUTHORIZED',
    });
    await engram.entities.create({ name: 'Unique', type: 'thing' });
    await expect(engram.entities.create({ name: 'Unique', type: 'thing' })).rejects.toMatchObject({
      status: 409,
      code: 'CONFLICT',
    });
  });
});

describe('recall, context, spaces, duplicates, keys', () => {
  it('recalls and builds context from what was stored', async () => {
    const space = engram.withSpace(`recall-${randomUUID().slice(0, 8)}`, { create: true });
    await space.entities.create({
      name: 'Grace Hopper',
      type: 'person',
      observations: ['Grace Hopper invented the first compiler'],
    });
    const answer = await space.recall('who invented the compiler', { types: ['person'] });
    expect(answer.results[0]).toMatchObject({ entityName: 'Grace Hopper' });
    const context = await space.context('compiler');
    expect(context.context).toContain('Grace Hopper');
  });

  it('keeps each space its own graph', async () => {
    const slug = `proj-${randomUUID().slice(0, 8)}`;
    const created = await engram.spaces.create({ name: 'Project', slug });
    expect(created.slug).toBe(slug);
    await engram.withSpace(slug).entities.create({ name: 'Only here', type: 'note' });
    expect((await engram.withSpace(slug).entities.list().toArray()).map((e) => e.name)).toEqual([
      'Only here',
    ]);
    const everywhere = await engram.spaces.list().toArray();
    expect(everywhere.map((s) => s.slug)).toContain(slug);
    expect((await engram.spaces.rename(slug, 'Renamed')).name).toBe('Renamed');
    await expect(engram.spaces.delete(slug)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await session.spaces.delete(slug);
    await expect(engram.spaces.get(slug)).rejects.toMatchObject({ status: 404 });
  });

  it('lists, dismisses and merges duplicates', async () => {
    const space = engram.withSpace(`dup-${randomUUID().slice(0, 8)}`, { create: true });
    const a = await space.entities.create({ name: 'Jon Smith', type: 'person' });
    const b = await space.entities.create({ name: 'John Smith', type: 'person' });
    const page = await space.duplicates.list().pages().next();
    expect(page.value).toHaveProperty('candidates');
    await space.duplicates.dismiss([a.id, b.id]);
    await space.duplicates.undismiss([a.id, b.id]);
    const merged = await space.duplicates.merge({ targetId: a.id, sourceIds: [b.id] });
    expect(merged.entity.aliases).toContain('John Smith');
    await expect(space.entities.get(b.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('manages API keys with a session token', async () => {
    const key = await session.keys.create({ name: 'agent' });
    expect(key.apiKey).toMatch(/^eng_key_/);
    expect((await session.keys.list().toArray()).map((k) => k.id)).toContain(key.id);
    const withKey = clientFor(server, key.apiKey);
    const made = await withKey.entities.create({ name: 'Made with a new key', type: 'note' });
    expect((await engram.entities.get(made.id)).name).toBe('Made with a new key');
    await session.keys.delete(key.id);
    await expect(withKey.entities.list().toArray()).rejects.toMatchObject({ status: 401 });
  });

  it('reaches any route through the typed `api`', async () => {
    const { data } = await engram.api.GET('/api/entities/types', { params: { query: {} } });
    expect(data?.types.length).toBeGreaterThan(0);
  });
});

describe('export and import', () => {
  it('exports JSON and JSONL and imports them into another space, once', async () => {
    const from = engram.withSpace(`out-${randomUUID().slice(0, 8)}`, { create: true });
    const x = await from.entities.create({
      name: 'X',
      type: 'letter',
      observations: ['first', { content: 'second', metadata: { source: 'test' } }],
    });
    const y = await from.entities.create({ name: 'Y', type: 'letter' });
    await from.relations.create({ fromEntityId: x.id, toEntityId: y.id, type: 'precedes' });

    const document = await from.export();
    expect(document.format).toBe('engram');
    expect(document.entities.map((e) => e.name).sort()).toEqual(['X', 'Y']);
    const jsonl = await from.export({ format: 'jsonl' });
    expect(
      jsonl
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).type),
    ).toEqual(['entity', 'entity', 'relation']);

    const viaJsonl = engram.withSpace(`in-${randomUUID().slice(0, 8)}`, { create: true });
    expect(await viaJsonl.import(jsonl)).toEqual({
      entities: 2,
      relations: 1,
      observations: 2,
      skipped: [],
    });
    expect(await viaJsonl.import(jsonl)).toEqual({
      entities: 0,
      relations: 0,
      observations: 0,
      skipped: [],
    });

    const viaJson = engram.withSpace(`in-${randomUUID().slice(0, 8)}`, { create: true });
    expect(await viaJson.import(JSON.stringify(document))).toEqual({
      entities: 2,
      relations: 1,
      observations: 2,
      skipped: [],
    });
    const copy = (await viaJson.export()).entities.find((e) => e.name === 'X')!;
    expect(copy.observations[1]).toMatchObject({ content: 'second', metadata: { source: 'test' } });
  });

  it('exports Markdown as a zip and imports it, and mem0, through POST /api/import', async () => {
    const from = engram.withSpace(`md-${randomUUID().slice(0, 8)}`, { create: true });
    const x = await from.entities.create({
      name: 'X',
      type: 'letter',
      metadata: { order: 24 },
      observations: [{ content: 'the 24th', metadata: { category: 'fact' } }, 'plain'],
    });
    const y = await from.entities.create({ name: 'Y', type: 'letter' });
    await from.relations.create({ fromEntityId: x.id, toEntityId: y.id, type: 'precedes' });

    const zip = await from.export({ format: 'markdown' });
    expect(zip).toBeInstanceOf(Uint8Array);
    // A zip: "PK" first.
    expect([zip[0], zip[1]]).toEqual([0x50, 0x4b]);

    const into = engram.withSpace(`md-in-${randomUUID().slice(0, 8)}`, { create: true });
    expect(await into.import(zip, { format: 'markdown' })).toEqual({
      entities: 2,
      relations: 1,
      observations: 2,
      skipped: [],
    });
    // Read as Markdown without the format too (bytes are a zip); nothing new.
    expect(await into.import(zip)).toEqual({
      entities: 0,
      relations: 0,
      observations: 0,
      skipped: [],
    });
    const copy = (await into.export()).entities.find((e) => e.name === 'X')!;
    expect(copy.metadata).toEqual({ order: 24 });
    expect(copy.observations.map((o) => [o.content, o.metadata ?? null])).toEqual([
      ['the 24th', { category: 'fact' }],
      ['plain', null],
    ]);

    const memories = { results: [{ id: 'm1', memory: 'Likes tea', user_id: 'ada' }] };
    expect(await into.import(memories, { format: 'mem0' })).toEqual({
      entities: 1,
      relations: 0,
      observations: 1,
      skipped: [],
    });
    expect(await into.import(JSON.stringify(memories))).toEqual({
      entities: 0,
      relations: 0,
      observations: 0,
      skipped: [],
    });

    const refused = await into.import('not a zip', { format: 'markdown' }).catch((e) => e);
    expect(refused).toBeInstanceOf(EngramError);
    expect(refused).toMatchObject({ status: 400 });
  });
});
