import { randomBytes, randomUUID } from 'node:crypto';
import { strToU8, unzipSync, zipSync } from 'fflate';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountIdOf,
  as,
  createTestApp,
  setPlan,
  signUp,
  type TestApp,
} from '../../test/harness.js';
import type { LosslessDocument } from './lossless.js';
import { ZIP_MAX_FILES } from './zip-reader.js';

// POST /api/import and GET /api/export?format= against the real database:
// Markdown (basic-memory, Obsidian) and mem0 in, Markdown out, losslessly.

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Call = ReturnType<typeof as>;

async function account() {
  const { token } = await signUp(t.app);
  return as(t.app, token);
}

const zip = (files: Record<string, string>) =>
  zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text)])));

function post(call: Call, format: string, body: Uint8Array | string | object, headers = {}) {
  const [type, payload] =
    body instanceof Uint8Array
      ? ['application/zip', Buffer.from(body)]
      : typeof body === 'string'
        ? ['text/plain', body]
        : ['application/json', JSON.stringify(body)];
  return call({
    method: 'POST',
    url: `/api/import?format=${format}`,
    headers: { 'content-type': type, ...headers },
    payload,
  });
}

async function exported(call: Call, headers = {}): Promise<LosslessDocument> {
  const response = await call({ method: 'GET', url: '/api/export', headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<LosslessDocument>();
}

/** A graph by name: what a round trip must keep. */
function byName(document: LosslessDocument) {
  const names = new Map(document.entities.map((entity) => [entity.id, entity.name]));
  return {
    entities: document.entities
      .map((entity) => ({
        name: entity.name,
        type: entity.type,
        metadata: entity.metadata,
        aliases: entity.aliases ?? [],
        observations: entity.observations.map(({ content, metadata }) => ({
          content,
          metadata: metadata ?? null,
        })),
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    relations: document.relations
      .map((relation) => ({
        from: names.get(relation.fromEntityId),
        to: names.get(relation.toEntityId),
        type: relation.type,
      }))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  };
}

const ok = (response: LightMyRequestResponse) => {
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ entities: number; relations: number; observations: number }>();
};

// A basic-memory note, one with metadata in front matter, and an Obsidian note with plain wikilinks.
const VAULT = {
  'people/Alice.md': `---
title: Alice
type: person
permalink: people/alice
tags:
  - team
---

# Alice

## Observations
- [role] Leads the platform team #work (since 2024)
- [preference] Drinks tea, not coffee
- Plain fact without a category

## Relations
- works_at [[Acme]]
- knows [[Bob]]
- mentors [[Nobody Here]]
`,
  'orgs/Acme.md': `---
title: Acme
type: organization
---

# Acme

## Observations
- [fact] Founded in 1999
`,
  'Bob.md': `# Bob

Bob met [[Alice]] at [[Acme|the office]] last spring.

- Likes hiking
- reports_to [[Alice]]
`,
  '.obsidian/workspace.md': 'ignored',
  'image.png': 'not a note',
};

describe('POST /api/import?format=markdown', () => {
  it('reads basic-memory notes and an Obsidian note into entities, observations and relations', async () => {
    const call = await account();
    expect(ok(await post(call, 'markdown', zip(VAULT)))).toEqual({
      entities: 3,
      observations: 6,
      // works_at, knows (Alice); links_to Alice, links_to Acme, reports_to (Bob). "Nobody Here" is left out.
      relations: 5,
      skipped: [],
    });
    const graph = byName(await exported(call));
    expect(graph.entities.map((entity) => [entity.name, entity.type])).toEqual([
      ['Acme', 'organization'],
      ['Alice', 'person'],
      ['Bob', 'note'],
    ]);
    const alice = graph.entities.find((entity) => entity.name === 'Alice')!;
    expect(alice.metadata).toEqual({ permalink: 'people/alice', tags: ['team'] });
    expect(alice.observations).toEqual([
      {
        content: 'Leads the platform team #work (since 2024)',
        metadata: { category: 'role' },
      },
      { content: 'Drinks tea, not coffee', metadata: { category: 'preference' } },
      { content: 'Plain fact without a category', metadata: null },
    ]);
    const bob = graph.entities.find((entity) => entity.name === 'Bob')!;
    expect(bob.observations.map((o) => o.content)).toEqual([
      'Bob met [[Alice]] at [[Acme|the office]] last spring.',
      'Likes hiking',
    ]);
    expect(graph.relations).toEqual(
      [
        { from: 'Alice', to: 'Acme', type: 'works_at' },
        { from: 'Alice', to: 'Bob', type: 'knows' },
        { from: 'Bob', to: 'Acme', type: 'links_to' },
        { from: 'Bob', to: 'Alice', type: 'links_to' },
        { from: 'Bob', to: 'Alice', type: 'reports_to' },
      ].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
  });

  it('is idempotent: the same zip again adds nothing; a note with more observations adds only those', async () => {
    const call = await account();
    ok(await post(call, 'markdown', zip(VAULT)));
    expect(ok(await post(call, 'markdown', zip(VAULT)))).toEqual({
      entities: 0,
      relations: 0,
      observations: 0,
      skipped: [],
    });
    const more = { ...VAULT, 'orgs/Acme.md': `${VAULT['orgs/Acme.md']}- [fact] Based in Lyon\n` };
    expect(ok(await post(call, 'markdown', zip(more)))).toEqual({
      entities: 0,
      relations: 0,
      observations: 1,
      skipped: [],
    });
  });

  it('round-trips an export losslessly: names, types, metadata, aliases, observations and their metadata, relations', async () => {
    const source = await account();
    const id = () => randomUUID();
    const at = new Date('2026-01-01T00:00:00.000Z').toISOString();
    const [a, b, c, d] = [id(), id(), id(), id()];
    const document = {
      format: 'engram',
      version: 1,
      entities: [
        {
          id: a,
          name: 'Ada: "Countess"/Lovelace?',
          type: 'person',
          metadata: { born: 1815, tags: ['math', 'poetry'], nested: { z: 1, a: [true, null] } },
          aliases: ['Ada Lovelace', 'A. King'],
          createdAt: at,
          updatedAt: at,
          observations: [
            {
              id: id(),
              content: 'Wrote the first program',
              metadata: { category: 'work' },
              createdAt: at,
            },
            {
              id: id(),
              content: '[not a category] starts with a bracket',
              createdAt: at,
            },
            {
              id: id(),
              content: 'Two lines:\nthe second one\n\nand a third after a blank',
              metadata: { source: 'letters', category: 'bio', confidence: 0.9 },
              createdAt: at,
            },
            { id: id(), content: '- looks like a list item', createdAt: at },
            { id: id(), content: 'Mentions [[Babbage]] in passing', createdAt: at },
            { id: id(), content: 'yes', metadata: { category: 'odd ] category' }, createdAt: at },
            { id: id(), content: '\\backslash first', createdAt: at },
          ],
        },
        {
          id: b,
          name: 'Babbage',
          type: 'person',
          metadata: {},
          createdAt: at,
          updatedAt: at,
          observations: [],
        },
        {
          id: c,
          name: 'ada: "countess"/lovelace?',
          type: 'person (variant)',
          metadata: { true: 'true', number: '123' },
          createdAt: at,
          updatedAt: at,
          observations: [{ id: id(), content: 'Same file name but for case', createdAt: at }],
        },
        {
          id: d,
          name: 'Weird [name] | #1',
          type: 'thing',
          metadata: {},
          createdAt: at,
          updatedAt: at,
          observations: [],
        },
      ],
      relations: [
        { id: id(), fromEntityId: a, toEntityId: b, type: 'worked with', createdAt: at },
        { id: id(), fromEntityId: b, toEntityId: a, type: 'corresponded_with', createdAt: at },
        { id: id(), fromEntityId: a, toEntityId: d, type: 'owns', createdAt: at },
        { id: id(), fromEntityId: d, toEntityId: c, type: '[bracketed] type', createdAt: at },
        { id: id(), fromEntityId: c, toEntityId: a, type: 'links_to', createdAt: at },
      ],
    };
    const seeded = await source({
      method: 'POST',
      url: '/api/import?format=json',
      payload: document,
    });
    expect(ok(seeded)).toMatchObject({ entities: 4, relations: 5 });

    const response = await source({ method: 'GET', url: '/api/export?format=markdown' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/zip');
    expect(response.headers['content-disposition']).toMatch(/engram-export-.*\.zip/);
    const bytes = new Uint8Array(response.rawPayload);
    const names = Object.keys(unzipSync(bytes)).sort();
    // Safe, unique file names (the two Ada notes differ only in case).
    expect(names).toHaveLength(4);
    expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(4);
    for (const name of names) expect(name).toMatch(/^[^/\\:*?"<>|#[\]^]+\.md$/);

    const target = await account();
    expect(ok(await post(target, 'markdown', bytes))).toEqual({
      entities: 4,
      relations: 5,
      observations: 8,
      skipped: [],
    });
    expect(byName(await exported(target))).toEqual(byName(await exported(source)));
    // And once more: nothing new.
    expect(ok(await post(target, 'markdown', bytes))).toEqual({
      entities: 0,
      relations: 0,
      observations: 0,
      skipped: [],
    });
  });

  it('writes into the space the request names, and only there', async () => {
    const call = await account();
    const other = { 'x-engram-space': 'notes' };
    const created = await call({
      method: 'POST',
      url: '/api/import?format=markdown&create=1',
      headers: { 'content-type': 'application/octet-stream', ...other },
      payload: Buffer.from(zip(VAULT)),
    });
    expect(ok(created).entities).toBe(3);
    expect((await exported(call)).entities).toEqual([]);
    expect((await exported(call, other)).entities).toHaveLength(3);
    const markdown = await call({
      method: 'GET',
      url: '/api/export?format=markdown',
      headers: other,
    });
    expect(markdown.headers['content-disposition']).toMatch(/engram-export-notes-/);
    expect(Object.keys(unzipSync(new Uint8Array(markdown.rawPayload)))).toHaveLength(3);
  });

  it('needs write access: a read-only key is refused (403) and nothing is written', async () => {
    const call = await account();
    const key = await call({
      method: 'POST',
      url: '/api/keys',
      payload: { name: 'reader', permissions: ['spaces:*:read'] },
    });
    expect(key.statusCode, key.body).toBe(201);
    const reader = as(t.app, key.json<{ apiKey: string }>().apiKey);
    const refused = await post(reader, 'markdown', zip(VAULT));
    expect(refused.statusCode, refused.body).toBe(403);
    expect((await exported(call)).entities).toEqual([]);
    // Reading stays allowed.
    expect((await reader({ method: 'GET', url: '/api/export?format=markdown' })).statusCode).toBe(
      200,
    );
  });

  it('refuses a viewer of the account (403), who may still export; a member imports', async () => {
    const owner = await signUp(t.app);
    await setPlan(t, owner.user.id, 'team');
    const accountId = await accountIdOf(t, owner.user.id);
    const ownerCall = as(t.app, owner.token);
    const join = async (role: 'viewer' | 'member') => {
      const email = `${role}-${accountId.slice(0, 8)}@example.com`;
      const invited = await ownerCall({
        method: 'POST',
        url: '/api/members/invitations',
        payload: { email, role },
      });
      const token = new URL(invited.json<{ url: string }>().url).hash.replace('#token=', '');
      const person = await signUp(t.app, { email });
      const call = as(t.app, person.token);
      const accepted = await call({
        method: 'POST',
        url: '/api/invitations/accept',
        payload: { token },
      });
      expect(accepted.statusCode, accepted.body).toBe(200);
      // Acting in the owner's account.
      return (options: Parameters<Call>[0]) =>
        call({ ...options, headers: { ...options.headers, 'x-engram-account': accountId } });
    };
    const viewer = await join('viewer');
    const refused = await post(viewer, 'markdown', zip(VAULT));
    expect(refused.statusCode, refused.body).toBe(403);
    expect((await exported(ownerCall)).entities).toEqual([]);
    const download = await viewer({ method: 'GET', url: '/api/export?format=markdown' });
    expect(download.statusCode).toBe(200);
    const member = await join('member');
    expect(ok(await post(member, 'markdown', zip(VAULT))).entities).toBe(3);
  });

  it('refuses bad input with 400 naming the field, writing nothing', async () => {
    const call = await account();
    const cases: [Uint8Array | string | object, string, string][] = [
      [zip({ 'a.md': '---\ntitle: [unclosed\n---\n' }), 'files.a.md', 'YAML'],
      [zip({ 'a.md': '---\ntype: 42\n---\n' }), 'files.a.md.type', 'type'],
      [zip({ 'a.md': '---\ntitle: "   "\n---\n' }), 'files.a.md.title', 'Name'],
      [
        zip({ 'a.md': '---\nobservation_metadata: { "3": { x: 1 } }\n---\n- one\n' }),
        'files.a.md.observation_metadata.3',
        'names no observation',
      ],
      [new TextEncoder().encode('plain text, not a zip'), '', 'zip'],
    ];
    for (const [body, field, words] of cases) {
      const response = await post(call, 'markdown', body);
      expect(response.statusCode, response.body).toBe(400);
      const error = response.json<{ error: string; details?: { field: string }[] }>();
      expect(error.error).toContain(words);
      if (field) expect(error.details?.[0]?.field).toBe(field);
    }
    const wrongType = await post(call, 'markdown', { not: 'a zip' });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json<{ details: { field: string }[] }>().details[0]!.field).toBe('body');
    const noFormat = await post(call, 'yaml', zip(VAULT));
    expect(noFormat.statusCode).toBe(400);
    expect(noFormat.body).toContain('format');
    expect((await exported(call)).entities).toEqual([]);
  });

  it('bounds the work: too many files, too much uncompressed (a zip bomb), a body past the limit', async () => {
    const call = await account();
    const many = zipSync(
      Object.fromEntries(
        Array.from({ length: ZIP_MAX_FILES + 1 }, (_, n) => [`n${n}.md`, new Uint8Array(0)]),
      ),
      { level: 0 },
    );
    const tooMany = await post(call, 'markdown', many);
    expect(tooMany.statusCode, tooMany.body).toBe(400);
    expect(tooMany.json<{ details: { field: string }[] }>().details[0]!.field).toBe('body');
    expect(tooMany.body).toContain('more than 10000 files');

    // 60 MB of one letter compresses to about 60 KB.
    const bomb = zipSync({ 'bomb.md': new Uint8Array(60 * 1024 * 1024).fill(97) }, { level: 9 });
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const refused = await post(call, 'markdown', bomb);
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json<{ details: { field: string }[] }>().details[0]!.field).toBe('body');
    expect(refused.body).toContain('uncompressed');

    const big = zipSync(
      { 'big.md': new Uint8Array(randomBytes(3 * 1024 * 1024)) },
      {
        level: 0,
      },
    );
    const tooLarge = await post(call, 'markdown', big);
    expect(tooLarge.statusCode).toBe(413);
    expect((await exported(call)).entities).toEqual([]);
  });
});

describe('POST /api/import?format=mem0', () => {
  const memories = [
    {
      id: 'm1',
      memory: 'Prefers dark mode',
      user_id: 'alice',
      metadata: { app: 'editor' },
      created_at: '2026-03-01T10:00:00.000-08:00',
    },
    { id: 'm2', memory: 'Speaks French', user_id: 'alice', created_at: '2026-03-02T09:00:00' },
    { id: 'm3', memory: 'Answers in haiku', agent_id: 'poet' },
    { id: 'm4', memory: 'The office moved to Lyon' },
  ];

  for (const [shape, body] of [
    ['{ results }', { results: memories }],
    ['{ memories }', { memories }],
    ['a bare array', memories],
  ] as const) {
    it(`reads ${shape}: an entity per user or agent, one "mem0 import" for the rest`, async () => {
      const call = await account();
      expect(ok(await post(call, 'mem0', body))).toEqual({
        entities: 3,
        relations: 0,
        observations: 4,
        skipped: [],
      });
      const graph = await exported(call);
      expect(graph.entities.map((entity) => [entity.name, entity.type])).toEqual([
        ['user:alice', 'user'],
        ['agent:poet', 'agent'],
        ['mem0 import', 'source'],
      ]);
      const alice = graph.entities[0]!;
      expect(alice.observations.map((o) => [o.content, o.metadata])).toEqual([
        ['Prefers dark mode', { app: 'editor', mem0_id: 'm1' }],
        ['Speaks French', { mem0_id: 'm2' }],
      ]);
      const entity = await call({ method: 'GET', url: `/api/entities/${alice.id}` });
      const observations = entity.json<{ observations: { validFrom: string | null }[] }>()
        .observations;
      expect(observations.map((o) => o.validFrom)).toEqual([
        '2026-03-01T18:00:00.000Z',
        '2026-03-02T09:00:00.000Z',
      ]);
      // Idempotent; a new memory of a known user is added to its entity.
      expect(ok(await post(call, 'mem0', body))).toEqual({
        entities: 0,
        relations: 0,
        observations: 0,
        skipped: [],
      });
      expect(
        ok(await post(call, 'mem0', [{ id: 'm5', memory: 'Moved to Berlin', user_id: 'alice' }])),
      ).toEqual({ entities: 0, relations: 0, observations: 1, skipped: [] });
    });
  }

  it("checks the plan's limits before writing anything (Free: 1,000 entities, 1,000 observations each)", async () => {
    const call = await account();
    const users = Array.from({ length: 1_001 }, (_, n) => ({ memory: 'hi', user_id: `u${n}` }));
    const tooMany = await post(call, 'mem0', users);
    expect(tooMany.statusCode, tooMany.body).toBe(402);
    expect(tooMany.body).toContain('would add 1,001');
    expect(tooMany.body).toContain('Nothing was imported');
    const facts = Array.from({ length: 1_001 }, (_, n) => ({ memory: `fact ${n}`, user_id: 'a' }));
    const tooLong = await post(call, 'mem0', facts);
    expect(tooLong.statusCode, tooLong.body).toBe(402);
    expect(tooLong.json<{ error: string }>().error).toContain('"user:a" has 1,001');
    expect((await exported(call)).entities).toEqual([]);
    // Within the limit: written.
    expect(ok(await post(call, 'mem0', users.slice(0, 1_000))).entities).toBe(1_000);
  });

  it('refuses what is not a mem0 export, naming the failing memory', async () => {
    const call = await account();
    const missing = await post(call, 'mem0', { results: [{ id: 1, memory: 'ok' }, { id: 2 }] });
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('results.1.memory');
    const shape = await post(call, 'mem0', { something: [] });
    expect(shape.statusCode).toBe(400);
    expect(shape.body).toContain('results');
    expect((await exported(call)).entities).toEqual([]);
  });
});

describe('POST /api/import?format=jsonl|json and GET /api/export?format=jsonl', () => {
  it('imports the reference JSONL as text and the lossless JSON, and exports JSONL', async () => {
    const call = await account();
    const jsonl =
      '{"type":"entity","name":"A","entityType":"t","observations":["one","two"]}\n' +
      '{"type":"entity","name":"B","entityType":"t","observations":[]}\n' +
      '{"type":"relation","from":"A","to":"B","relationType":"r"}\n';
    expect(ok(await post(call, 'jsonl', jsonl))).toEqual({
      entities: 2,
      relations: 1,
      observations: 2,
      skipped: [],
    });
    const ndjson = await post(call, 'jsonl', jsonl, { 'content-type': 'application/x-ndjson' });
    expect(ok(ndjson)).toEqual({ entities: 0, relations: 0, observations: 0, skipped: [] });
    const out = await call({ method: 'GET', url: '/api/export?format=jsonl' });
    expect(out.headers['content-type']).toContain('application/x-ndjson');
    expect(out.body).toBe(jsonl);

    const other = await account();
    expect(ok(await post(other, 'json', await exported(call)))).toEqual({
      entities: 2,
      relations: 1,
      observations: 2,
      skipped: [],
    });
    const bad = await post(other, 'jsonl', 'not json\n');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Line 1');
  });
});
