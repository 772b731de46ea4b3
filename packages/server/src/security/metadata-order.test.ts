import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../db/migrations/index.js';
import {
  as,
  createTestApp,
  createEmptyTestDatabase,
  signUp,
  type TestApp,
  inDefaultSpace,
} from '../test/harness.js';
import { callTool, connectEra, type Era } from '../test/mcp-client.js';

// Finding 9 of issue 31: metadata came back in jsonb's key order (shortest
// key first, then bytewise), not the order it was given in, so a card's
// "first three pairs" and the pretty-printed JSON were not what the person
// typed. Every path that stores metadata and every path that answers it keeps
// the order the client sent, on both databases.

/** Keys in neither alphabetical nor length order, nested too. */
const METADATA = { zeta: 1, a: 2, mid: { y: 1, b: 2 }, bb: 3 };
const OBSERVATION_METADATA = { source: 'letters', at: { year: 1843, month: 7 }, by: 'Ada' };
const CHANGED = { zz: [{ q: 1, b: 2 }], omega: true, a: null };

/** The JSON text of a value: equal texts mean the same keys in the same order, at every depth. */
const text = (value: unknown) => JSON.stringify(value);

interface WireObservation {
  content: string;
  metadata?: Record<string, unknown>;
}
interface WireEntity {
  id: string;
  name: string;
  metadata: Record<string, unknown>;
  observations: WireObservation[];
}

let t: TestApp;
let base: string;
let owner: { token: string; user: { apiKey: string } };

beforeAll(async () => {
  t = await createTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  owner = await signUp(t.app);
});
afterAll(() => t.close());

async function create(token: string, name: string) {
  const response = await as(
    t.app,
    token,
  )({
    method: 'POST',
    url: '/api/entities',
    payload: {
      name,
      type: 'person',
      metadata: METADATA,
      observations: [{ content: `${name} wrote notes`, metadata: OBSERVATION_METADATA }],
    },
  });
  expect(response.statusCode).toBe(201);
  return response;
}

/** The entity named `name` as every REST read gives it: get, list, search. */
async function restReads(token: string, id: string, name: string) {
  const api = as(t.app, token);
  const one = (await api({ method: 'GET', url: `/api/entities/${id}` })).json<WireEntity>();
  const listed = (await api({ method: 'GET', url: '/api/entities?limit=100' }))
    .json<{ entities: WireEntity[] }>()
    .entities.find((entity) => entity.id === id);
  const found = (
    await api({ method: 'GET', url: `/api/entities?query=${encodeURIComponent(name)}` })
  )
    .json<{ entities: WireEntity[] }>()
    .entities.find((entity) => entity.id === id);
  return { one, listed: listed!, found: found! };
}

describe('metadata keeps the order of its keys (finding 9)', () => {
  it('through REST create, get, list, search, update and added observations', async () => {
    const created = await create(owner.token, 'Ada Order');
    // On the wire, exactly as sent.
    expect(created.body).toContain(`"metadata":${text(METADATA)}`);
    expect(created.body).toContain(`"metadata":${text(OBSERVATION_METADATA)}`);
    const { id } = created.json<WireEntity>();

    for (const read of Object.values(await restReads(owner.token, id, 'Ada Order'))) {
      expect(text(read.metadata)).toBe(text(METADATA));
    }
    const { one } = await restReads(owner.token, id, 'Ada Order');
    expect(text(one.observations[0]!.metadata)).toBe(text(OBSERVATION_METADATA));

    const api = as(t.app, owner.token);
    const updated = await api({
      method: 'PUT',
      url: `/api/entities/${id}`,
      payload: {
        name: 'Ada Order',
        type: 'person',
        metadata: CHANGED,
        // The kept text gets new metadata; a new one is appended with its own.
        observations: [
          { content: 'Ada Order wrote notes', metadata: CHANGED },
          { content: 'a second note', metadata: METADATA },
        ],
      },
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.body).toContain(`"metadata":${text(CHANGED)}`);

    const added = await api({
      method: 'POST',
      url: `/api/entities/${id}/observations`,
      payload: { observations: [{ content: 'a third note', metadata: OBSERVATION_METADATA }] },
    });
    expect(added.statusCode).toBe(201);
    expect(added.body).toContain(`"metadata":${text(OBSERVATION_METADATA)}`);

    const after = await restReads(owner.token, id, 'Ada Order');
    for (const read of Object.values(after)) expect(text(read.metadata)).toBe(text(CHANGED));
    expect(after.one.observations.map((o) => text(o.metadata))).toEqual([
      text(CHANGED),
      text(METADATA),
      text(OBSERVATION_METADATA),
    ]);
  });

  it('a key given twice keeps its last value, where JSON.parse puts it', async () => {
    const api = as(t.app, owner.token);
    const response = await api({
      method: 'POST',
      url: '/api/entities',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":"Twice","type":"t","metadata":{"b":1,"a":2,"b":3}}',
    });
    expect(response.statusCode).toBe(201);
    const { id } = response.json<WireEntity>();
    const read = await api({ method: 'GET', url: `/api/entities/${id}` });
    expect(read.body).toContain('"metadata":{"b":3,"a":2}');
  });

  it('integer-like keys come first, as in any JavaScript object (the documented limit)', async () => {
    const api = as(t.app, owner.token);
    const response = await api({
      method: 'POST',
      url: '/api/entities',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":"Numbered","type":"t","metadata":{"b":1,"2":2,"a":3,"1":4}}',
    });
    expect(response.statusCode).toBe(201);
    const { id } = response.json<WireEntity>();
    const read = await api({ method: 'GET', url: `/api/entities/${id}` });
    expect(read.body).toContain('"metadata":{"1":4,"2":2,"b":1,"a":3}');
  });

  it.each<Era>(['legacy', 'modern'])('through the MCP update_entity tool (%s era)', async (era) => {
    const created = await create(owner.token, `Mcp ${era}`);
    const { id } = created.json<WireEntity>();
    const client = await connectEra(era, base, owner.user.apiKey);
    try {
      const result = await callTool<{ entity: { metadata: Record<string, unknown> } }>(
        client,
        'update_entity',
        { name: `Mcp ${era}`, metadata: CHANGED },
      );
      expect(text(result.entity.metadata)).toBe(text(CHANGED));
    } finally {
      await client.close();
    }
    for (const read of Object.values(await restReads(owner.token, id, `Mcp ${era}`))) {
      expect(text(read.metadata)).toBe(text(CHANGED));
    }
  });

  it('through the lossless export and its import into another account', async () => {
    const exporter = await signUp(t.app);
    const created = await create(exporter.token, 'Exported');
    const { id } = created.json<WireEntity>();
    const exported = await as(t.app, exporter.token)({ method: 'GET', url: '/api/export' });
    expect(exported.statusCode).toBe(200);
    expect(exported.body).toContain(`"metadata":${text(METADATA)}`);
    expect(exported.body).toContain(`"metadata":${text(OBSERVATION_METADATA)}`);

    const importer = await signUp(t.app);
    const auth = inDefaultSpace((await t.runtime.authenticate(importer.user.apiKey))!);
    const summary = await t.runtime.transfer.importLossless(auth!, JSON.parse(exported.body));
    expect(summary.entities).toBe(1);

    const { one, listed, found } = await restReads(importer.token, id, 'Exported');
    for (const read of [one, listed, found]) expect(text(read.metadata)).toBe(text(METADATA));
    expect(text(one.observations[0]!.metadata)).toBe(text(OBSERVATION_METADATA));
    const again = await as(t.app, importer.token)({ method: 'GET', url: '/api/export' });
    expect(again.body).toContain(`"metadata":${text(METADATA)}`);
  });
});

describe('migration 013 on a database that stored metadata as jsonb', () => {
  it('keeps each row (in the only order jsonb kept) and the stored-bytes counter right', async () => {
    const database = await createEmptyTestDatabase();
    try {
      await database.withSession(async (session) => {
        const at = migrations.findIndex((migration) => migration.name === '013-metadata-order');
        for (const migration of migrations.slice(0, at)) await session.exec(migration.sql);
        const [account] = await session.query<{ id: string }>(
          `insert into accounts (name) values ('old') returning id`,
        );
        const [entity] = await session.query<{ id: string }>(
          `insert into entities (account_id, name, type, metadata) values ($1, 'Old', 't', $2)
           returning id`,
          [account!.id, text(METADATA)],
        );
        await session.query(
          `insert into observations (account_id, entity_id, content, metadata, position)
           values ($1, $2, 'noted', $3, 0), ($1, $2, 'bare', null, 1)`,
          [account!.id, entity!.id, text(OBSERVATION_METADATA)],
        );
        const bytes = `select stored_bytes::float8 as stored,
            ((select sum(200 + octet_length(name) + octet_length(type) + octet_length(metadata::text))
                from entities where account_id = $1)
           + (select sum(100 + octet_length(content) + coalesce(octet_length(metadata::text), 0))
                from observations where account_id = $1))::float8 as counted
          from accounts where id = $1`;
        const [before] = await session.query<{ stored: number; counted: number }>(bytes, [
          account!.id,
        ]);

        await session.exec(migrations[at]!.sql);

        const [after] = await session.query<{ stored: number; counted: number }>(bytes, [
          account!.id,
        ]);
        expect(after).toEqual(before);
        expect(after!.stored).toBe(after!.counted);
        // jsonb's order (shortest key first), now kept as text.
        const [row] = await session.query<{ metadata: Record<string, unknown> }>(
          'select metadata from entities where id = $1',
          [entity!.id],
        );
        expect(text(row!.metadata)).toBe('{"a":2,"bb":3,"mid":{"b":2,"y":1},"zeta":1}');
        const observations = await session.query<{ metadata: Record<string, unknown> | null }>(
          'select metadata from observations where entity_id = $1 order by position',
          [entity!.id],
        );
        expect(observations.map((o) => o.metadata && Object.keys(o.metadata))).toEqual([
          ['at', 'by', 'source'],
          null,
        ]);
        // The default still applies, and new rows keep the order given.
        const [fresh] = await session.query<{ metadata: Record<string, unknown> }>(
          `insert into entities (account_id, name, type) values ($1, 'New', 't') returning metadata`,
          [account!.id],
        );
        expect(fresh!.metadata).toEqual({});
      });
    } finally {
      await database.close();
    }
  });
});
