import { randomUUID } from 'node:crypto';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, createTestApp, signUp, type TestApp } from '../test/harness.js';

// A name belongs to one entity of a space, as its name or as an alias. The
// insert checks aliases against rows already stored, but one import's
// entities land together: they are checked against each other first (a
// name beats an alias; the first entity giving an alias keeps it), and the
// import's answer lists what it left out as `skipped`.

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Call = ReturnType<typeof as>;

async function account(): Promise<Call> {
  const { token } = await signUp(t.app);
  return as(t.app, token);
}

interface Answer {
  entities: number;
  relations: number;
  observations: number;
  skipped: { file?: string; name?: string; reason: string }[];
}

const now = new Date().toISOString();
const entity = (name: string, aliases?: string[]) => ({
  id: randomUUID(),
  name,
  type: 'person',
  metadata: {},
  ...(aliases ? { aliases } : {}),
  createdAt: now,
  updatedAt: now,
  observations: [],
});

async function importJson(call: Call, entities: unknown[]): Promise<Answer> {
  const response = await call({
    method: 'POST',
    url: '/api/import?format=json',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ format: 'engram', version: 1, entities, relations: [] }),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Answer>();
}

async function aliasesByName(call: Call): Promise<Record<string, string[]>> {
  const response = await call({ method: 'GET', url: '/api/export?format=json' });
  const { entities } = response.json<{ entities: { name: string; aliases?: string[] }[] }>();
  return Object.fromEntries(entities.map((e) => [e.name, e.aliases ?? []]));
}

describe('an import keeps the alias rule among its own entities', () => {
  it('json: an alias given twice stays with the first, an alias that is another name is left out', async () => {
    const call = await account();
    const answer = await importJson(call, [
      entity('Ada Lovelace', ['Ada', 'Countess']),
      entity('Ada Byron', ['Ada']),
      entity('Countess'),
    ]);
    expect(answer.entities).toBe(3);
    expect(answer.skipped).toEqual([
      {
        name: 'Ada Lovelace',
        reason: 'the alias "Countess" is the name of another entity in this import',
      },
      { name: 'Ada Byron', reason: 'the alias "Ada" is an alias of "Ada Lovelace" in this import' },
    ]);
    expect(await aliasesByName(call)).toEqual({
      'Ada Lovelace': ['Ada'],
      'Ada Byron': [],
      Countess: [],
    });
  });

  it('json: an alias another entity of the space goes by is listed as skipped', async () => {
    const call = await account();
    await importJson(call, [entity('Grace Hopper', ['Amazing Grace'])]);
    const answer = await importJson(call, [entity('Grace Kelly', ['Amazing Grace', 'Princess'])]);
    expect(answer.skipped).toEqual([
      {
        name: 'Grace Kelly',
        reason: 'the alias "Amazing Grace" is another entity\'s name or alias in this space',
      },
    ]);
    expect((await aliasesByName(call))['Grace Kelly']).toEqual(['Princess']);
  });

  it('markdown: two notes giving one alias; the skip names the note', async () => {
    const call = await account();
    const note = (title: string, alias: string) =>
      `---\ntitle: ${title}\ntype: person\naliases: [${alias}]\n---\n\n# ${title}\n`;
    const zip = zipSync({
      'people/ada.md': strToU8(note('Ada Lovelace', 'Ada')),
      'people/byron.md': strToU8(note('Ada Byron', 'Ada')),
    });
    const response = await call({
      method: 'POST',
      url: '/api/import?format=markdown',
      headers: { 'content-type': 'application/zip' },
      payload: Buffer.from(zip),
    });
    expect(response.statusCode, response.body).toBe(200);
    const answer = response.json<Answer>();
    expect(answer.entities).toBe(2);
    expect(answer.skipped).toHaveLength(1);
    expect(answer.skipped[0]!.reason).toMatch(/the alias "Ada" is an alias of "Ada/);
    expect(answer.skipped[0]!.file).toMatch(/^people\/(ada|byron)\.md$/);
    const aliases = await aliasesByName(call);
    expect([...aliases['Ada Lovelace']!, ...aliases['Ada Byron']!]).toEqual(['Ada']);
  });

  it('importing the same file again says nothing of the aliases of entities it had', async () => {
    const call = await account();
    const file = [entity('Ada Lovelace', ['Ada']), entity('Ada Byron', ['Ada'])];
    expect((await importJson(call, file)).skipped).toHaveLength(1);
    expect(await importJson(call, file)).toMatchObject({ entities: 0, skipped: [] });
  });

  it('an import that leaves nothing out answers skipped: []', async () => {
    const call = await account();
    expect((await importJson(call, [entity('Alan Turing', ['Alan'])])).skipped).toEqual([]);
  });
});
