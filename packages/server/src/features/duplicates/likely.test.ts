import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, createTestApp, setPlan, signUp, type TestApp } from '../../test/harness.js';
import { connectMcp } from '../../test/mcp-client.js';
import { nameKey } from './name-key.js';

/**
 * A create names the entities whose name or alias equals a new name but for
 * case, spacing and punctuation, in the same call, whatever the finder's
 * backlog (migration 034's name keys): the finder never runs in this file
 * unless a test drains it.
 */

let t: TestApp;
let baseUrl: string;
beforeAll(async () => {
  t = await createTestApp();
  await t.runtime.duplicates.finder.stop();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

type Call = ReturnType<typeof as>;
type Hint = { id: string; name: string; type: string; score: number };
type McpHint = { name: string; duplicateOf: string; score: number };

async function account() {
  const { token, user } = await signUp(t.app);
  await setPlan(t, user.id, 'team');
  return as(t.app, token);
}

async function create(call: Call, name: string, type = 'person', space?: string) {
  const response = await call({
    method: 'POST',
    url: '/api/entities',
    headers: space ? { 'x-engram-space': space } : {},
    payload: { name, type },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string; possibleDuplicates: Hint[] }>();
}

async function agentOf(call: Call, path?: string) {
  const key = (await call({ method: 'POST', url: '/api/keys', payload: { name: 'agent' } })).json<{
    apiKey: string;
  }>().apiKey;
  return connectMcp(baseUrl, key, path);
}

async function createByMcp(call: Call, names: string[], path?: string) {
  const client = await agentOf(call, path);
  try {
    const answer = await client.callTool({
      name: 'create_entities',
      arguments: {
        entities: names.map((name) => ({ name, entityType: 'person', observations: [] })),
      },
    });
    expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
    const structured = answer.structuredContent as { possibleDuplicates: McpHint[] };
    const text = (answer.content as { text: string }[])[0]!.text;
    expect(JSON.parse(text.split('\n\n')[0]!)).toEqual(structured);
    return { hints: structured.possibleDuplicates, text };
  } finally {
    await client.close();
  }
}

describe('a create names a twin written a moment before', () => {
  it('on REST and MCP, with a high score, once each, merged with the finder’s', async () => {
    const call = await account();
    const grace = await create(call, 'Grace Brewster Hopper');
    expect(grace.possibleDuplicates).toEqual([]);

    // Right after, before the finder has seen it.
    const lower = await create(call, 'grace brewster hopper');
    expect(lower.possibleDuplicates).toEqual([
      { id: grace.id, name: 'Grace Brewster Hopper', type: 'person', score: expect.any(Number) },
    ]);
    expect(lower.possibleDuplicates[0]!.score).toBeGreaterThanOrEqual(0.95);

    const { hints, text } = await createByMcp(call, ['Grace Brewster-Hopper']);
    expect(hints).toHaveLength(2);
    expect(hints).toEqual(
      expect.arrayContaining([
        {
          name: 'Grace Brewster-Hopper',
          duplicateOf: 'Grace Brewster Hopper',
          score: expect.any(Number),
        },
        {
          name: 'Grace Brewster-Hopper',
          duplicateOf: 'grace brewster hopper',
          score: expect.any(Number),
        },
      ]),
    );
    expect(text).toContain('"Grace Brewster-Hopper" may be "Grace Brewster Hopper"');

    // Once the finder has compared them, its hints and the key's name each entity once.
    await t.runtime.duplicates.finder.drain();
    const upper = await create(call, 'GRACE BREWSTER HOPPER');
    expect(upper.possibleDuplicates.map((hint) => hint.name).sort()).toEqual([
      'Grace Brewster Hopper',
      'Grace Brewster-Hopper',
      'grace brewster hopper',
    ]);
  });

  it('names an entity whose alias is the new name but for case and punctuation', async () => {
    const call = await account();
    const ada = await create(call, 'Ada Lovelace');
    const put = await call({
      method: 'PUT',
      url: `/api/entities/${ada.id}`,
      payload: { name: 'Ada Lovelace', type: 'person', aliases: ['Countess of Lovelace'] },
    });
    expect(put.statusCode, put.body).toBe(200);

    const countess = await create(call, 'countess-of-lovelace', 'noble');
    expect(countess.possibleDuplicates).toEqual([
      { id: ada.id, name: 'Ada Lovelace', type: 'person', score: expect.any(Number) },
    ]);
    const { hints } = await createByMcp(call, ['COUNTESS OF LOVELACE.']);
    expect(hints).toEqual(
      expect.arrayContaining([
        { name: 'COUNTESS OF LOVELACE.', duplicateOf: 'Ada Lovelace', score: expect.any(Number) },
      ]),
    );
    // The very alias is refused (REST) or skipped (MCP), never a hint.
    const same = await call({
      method: 'POST',
      url: '/api/entities',
      payload: { name: 'Countess of Lovelace', type: 'person' },
    });
    expect(same.statusCode).toBe(409);
  });

  it('names two spellings in one create_entities call, the later as a duplicate of the earlier', async () => {
    const call = await account();
    const { hints, text } = await createByMcp(call, [
      'Alan Turing',
      'Edsger Dijkstra',
      'alan  turing',
    ]);
    expect(hints).toEqual([
      { name: 'alan  turing', duplicateOf: 'Alan Turing', score: expect.any(Number) },
    ]);
    expect(hints[0]!.score).toBeGreaterThanOrEqual(0.95);
    expect(text).toContain('"alan  turing" may be "Alan Turing"');
    // An existing name given again is skipped, not a hint; its twin in the call still is.
    const again = await createByMcp(call, ['Alan Turing', 'ALAN TURING']);
    expect(again.hints.map((hint) => [hint.name, hint.duplicateOf]).sort()).toEqual([
      ['ALAN TURING', 'Alan Turing'],
      ['ALAN TURING', 'alan  turing'],
    ]);
  });

  it('never names another space’s entity', async () => {
    const call = await account();
    const space = await call({ method: 'POST', url: '/api/spaces', payload: { name: 'work' } });
    expect(space.statusCode, space.body).toBe(201);
    const work = await create(call, 'Barbara Liskov', 'person', 'work');

    expect((await create(call, 'barbara liskov')).possibleDuplicates).toEqual([]);
    expect((await createByMcp(call, ['BARBARA LISKOV'])).hints).toEqual([
      { name: 'BARBARA LISKOV', duplicateOf: 'barbara liskov', score: expect.any(Number) },
    ]);
    await t.runtime.duplicates.finder.drain();
    expect(
      (await create(call, 'Barbara-Liskov')).possibleDuplicates.map((hint) => hint.name).sort(),
    ).toEqual(['BARBARA LISKOV', 'barbara liskov']);
    // In its own space it is named.
    expect((await create(call, 'barbara  liskov', 'person', 'work')).possibleDuplicates).toEqual([
      { id: work.id, name: 'Barbara Liskov', type: 'person', score: expect.any(Number) },
    ]);
  });
});

describe('name keys', () => {
  it('are computed alike by the database and by nameKey, character by character', async () => {
    const samples: string[] = [];
    const ranges: [number, number][] = [
      [0x01, 0x52f],
      [0x1e00, 0x1eff],
      [0x2000, 0x206f],
      [0x3000, 0x3003],
    ];
    for (const [from, to] of ranges) {
      for (let code = from; code <= to; code++) samples.push(`A${String.fromCodePoint(code)}b`);
    }
    samples.push(
      'C++',
      'c + +',
      'C#',
      'AT&T',
      'Ada  Lovelace',
      'ΟΔΟΣ',
      'Straße',
      'José García',
      '😀 Emoji',
      '北京',
      `${'Ж'.repeat(300)} ${'é'.repeat(300)}`,
      `${'x'.repeat(499)}😀😀`,
    );
    const result = await sql<{ key: string; alias: string }>`
      select name_key(s) as key,
             (alias_keys('00000000-0000-0000-0000-000000000001', array[s]))[1] as alias
        from unnest(${samples}::text[]) with ordinality as x(s, n)
       order by n
    `.execute(t.database.db);
    const differ = samples.filter((sample, index) => result.rows[index]!.key !== nameKey(sample));
    expect(differ).toEqual([]);
    expect(result.rows.map((row) => row.alias)).toEqual(
      samples.map((sample) => `00000000-0000-0000-0000-000000000001 ${nameKey(sample)}`),
    );
    expect(['C++', 'C#', 'C', 'Jose', 'José'].map(nameKey)).toEqual([
      'cpp',
      'csharp',
      'c',
      'jose',
      'josé',
    ]);
    expect(nameKey('Grace Brewster-Hopper')).toBe(nameKey('grace  brewster hopper'));
    // Only letters and numbers' case and punctuation go: no letter or number is removed.
    const removed = samples.filter((sample) => nameKey(sample) === 'ab');
    expect(removed.filter((sample) => /[\p{L}\p{N}]/u.test(sample.slice(1, -1)))).toEqual([]);
  });
});
