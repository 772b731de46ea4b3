import type { EntityList } from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEntity, getJson, newAccount, type Account } from '../../test/graph-fixtures.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { expectValidationError } from '../../test/http-assertions.js';

// GET /api/entities pages by key: `nextCursor` → `cursor` starts the next
// page right after the last entity given, so a page late in the list costs
// what the first does, and entities created or deleted between pages shift
// nothing (issue 33, "Lists and usage").

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});

afterAll(async () => {
  await t?.close();
});

const names = (list: { entities: { name: string }[] }) => list.entities.map((e) => e.name);
const pad = (i: number) => String(i).padStart(3, '0');

function url(params: Record<string, string | number | null | undefined>) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined) query.set(key, String(value));
  }
  return `/api/entities?${query.toString()}`;
}

/**
 * Every page of a list, following `nextCursor`; `between` runs after each
 * page (writes made while a person reads). Checks each page's `nextOffset`
 * against the entities given so far.
 */
async function followCursor(
  account: Account,
  params: Record<string, string | number>,
  between: (page: number, list: EntityList) => Promise<void> = async () => {},
) {
  const seen: string[] = [];
  const pages: EntityList[] = [];
  let cursor: string | null = null;
  do {
    const list: EntityList = await getJson<EntityList>(account.req, url({ ...params, cursor }));
    seen.push(...names(list));
    pages.push(list);
    expect(list.nextOffset).toBe(list.nextCursor === null ? null : seen.length);
    cursor = list.nextCursor;
    await between(pages.length, list);
  } while (cursor !== null && pages.length < 100);
  return { seen, pages };
}

describe('GET /api/entities by cursor', () => {
  let a: Account;
  /** Newest first, as the list gives them. */
  let newestFirst: string[];
  let made = 0;

  beforeAll(async () => {
    a = await newAccount(t.app);
    for (let i = 0; i < 30; i++) {
      await createEntity(a.req, { name: `Item ${pad(i)}`, type: i % 2 ? 'odd' : 'even' });
    }
    newestFirst = Array.from({ length: 30 }, (_, i) => `Item ${pad(29 - i)}`);
  });

  /** Two more entities, as another tab or an agent would write them. */
  const writeMore = async () => {
    for (let i = 0; i < 2; i++) {
      made += 1;
      await createEntity(a.req, { name: `Later ${pad(made)}`, type: made % 2 ? 'odd' : 'even' });
    }
  };

  it('chains pages newest first, without gaps or repeats, while entities are created between them', async () => {
    const { seen, pages } = await followCursor(a, { limit: 7 }, writeMore);
    // What was there when the first page was read, each once, in order: the
    // entities created meanwhile are newer, above the first page.
    expect(seen).toEqual(newestFirst);
    expect(pages.map((page) => page.entities.length)).toEqual([7, 7, 7, 7, 2]);
    expect(pages.map((page) => page.total)).toEqual([30, 32, 34, 36, 38]);
    const last = pages[pages.length - 1]!;
    expect(last).toMatchObject({ nextCursor: null, nextOffset: null, truncated: false });
  });

  it('chains pages of a type filter the same way', async () => {
    const { seen } = await followCursor(a, { types: 'odd', limit: 4 }, writeMore);
    const odd = newestFirst.filter((name) => Number(name.slice(-3)) % 2 === 1);
    expect(seen.slice(-odd.length)).toEqual(odd);
    expect(seen.every((name) => name.startsWith('Later') || odd.includes(name))).toBe(true);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('chains the pages of a search, best first, while matches are created between them', async () => {
    const { seen } = await followCursor(a, { query: 'item', limit: 6 }, async (page) => {
      // One match that sorts before the pages read so far, one after.
      await createEntity(a.req, { name: `Item ${pad(page)} again`, type: 'even' });
      await createEntity(a.req, { name: `Itemz ${pad(page)}`, type: 'odd' });
    });
    expect(new Set(seen).size).toBe(seen.length);
    // Every entity there from the start, once, in the search's order (name prefix, then name).
    const original = seen.filter((name) => /^Item \d{3}$/.test(name));
    expect(original).toEqual([...newestFirst].sort());
    expect([...seen].sort((x, y) => (x.toLowerCase() < y.toLowerCase() ? -1 : 1))).toEqual(seen);
    // A match written after the page it would sort into was read is not there; later ones are.
    expect(seen.filter((name) => name.startsWith('Itemz')).length).toBeGreaterThan(0);
  });

  it('goes on by count when the last entity of a page was deleted before the next', async () => {
    const b = await newAccount(t.app);
    for (let i = 0; i < 12; i++) await createEntity(b.req, { name: `B ${pad(i)}` });
    const first = await getJson<EntityList>(b.req, url({ limit: 5 }));
    const gone = first.entities[4]!;
    const deleted = await b.req({ method: 'DELETE', url: `/api/entities/${gone.id}` });
    expect(deleted.statusCode).toBe(200);
    const second = await getJson<EntityList>(b.req, url({ limit: 5, cursor: first.nextCursor }));
    expect(names(first).concat(names(second))).toEqual(
      Array.from({ length: 10 }, (_, i) => `B ${pad(11 - i)}`),
    );
  });

  it('keeps offset paging, and ignores offset when a cursor is given', async () => {
    const byOffset = await getJson<EntityList>(a.req, url({ limit: 5, offset: 5 }));
    const first = await getJson<EntityList>(a.req, url({ limit: 5 }));
    expect(byOffset.nextOffset).toBe(10);
    const byCursor = await getJson<EntityList>(
      a.req,
      url({ limit: 5, offset: 999, cursor: first.nextCursor }),
    );
    expect(names(byCursor)).toEqual(names(byOffset));
    expect(byCursor.nextOffset).toBe(10);
  });

  it.each([
    ['text outside the alphabet', 'not a cursor!'],
    ['base64 of no JSON', Buffer.from('{{').toString('base64url')],
    ['a position of no list', Buffer.from('[1,2,3]').toString('base64url')],
    ['an id that is no uuid', Buffer.from('["n","x",5]').toString('base64url')],
    [
      'a count of nothing',
      Buffer.from('["n","00000000-0000-0000-0000-000000000000",0]').toString('base64url'),
    ],
    ['too long', 'A'.repeat(2001)],
  ])('refuses %s with 400 naming query.cursor', async (_, cursor) => {
    expectValidationError(await a.req({ method: 'GET', url: url({ cursor }) }), ['query.cursor']);
  });

  it('refuses a search cursor on the plain list and the other way round', async () => {
    const search = await getJson<EntityList>(a.req, url({ query: 'item', limit: 2 }));
    const plain = await getJson<EntityList>(a.req, url({ limit: 2 }));
    expectValidationError(await a.req({ method: 'GET', url: url({ cursor: search.nextCursor }) }), [
      'query.cursor',
    ]);
    expectValidationError(
      await a.req({ method: 'GET', url: url({ query: 'item', cursor: plain.nextCursor }) }),
      ['query.cursor'],
    );
  });

  it('answers another account’s cursor from the caller’s own entities only', async () => {
    const mine = await getJson<EntityList>(a.req, url({ limit: 3 }));
    const stranger = await newAccount(t.app);
    const empty = await getJson<EntityList>(stranger.req, url({ cursor: mine.nextCursor }));
    expect(empty).toEqual({
      entities: [],
      total: 0,
      nextOffset: null,
      truncated: false,
      nextCursor: null,
    });

    for (let i = 0; i < 6; i++) await createEntity(stranger.req, { name: `S ${pad(i)}` });
    const theirs = await getJson<EntityList>(
      stranger.req,
      url({ limit: 2, cursor: mine.nextCursor }),
    );
    expect(theirs.total).toBe(6);
    expect(names(theirs).every((name) => name.startsWith('S '))).toBe(true);
    // A cursor is a position, never a way into other rows: the search's too.
    const searched = await getJson<EntityList>(a.req, url({ query: 'item', limit: 2 }));
    const viaSearch = await getJson<EntityList>(
      stranger.req,
      url({ query: 'item', cursor: searched.nextCursor }),
    );
    expect(viaSearch).toMatchObject({ entities: [], total: 0, nextCursor: null });
    // Nothing in a cursor tells more than the answer it came with: its entity's id and a count.
    const held = JSON.parse(Buffer.from(mine.nextCursor!, 'base64url').toString()) as unknown[];
    expect(held).toEqual(['n', mine.entities[2]!.id, 3]);
  });
});
