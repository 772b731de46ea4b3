import { describe, expect, it } from 'vitest';
import { CredentialCache } from './credential-cache.js';

interface Row {
  id: string;
  reads: number;
}

/** A table of credential rows by hash that counts how often each is read. */
function table(rows: Record<string, string>) {
  const reads = new Map<string, number>();
  return {
    reads,
    load: async (hash: string): Promise<Row | undefined> => {
      reads.set(hash, (reads.get(hash) ?? 0) + 1);
      const id = rows[hash];
      return id === undefined ? undefined : { id, reads: reads.get(hash)! };
    },
  };
}

const idOf = (row: Row) => row.id;

describe('CredentialCache', () => {
  it('reads a known credential once, and an unknown one every time', async () => {
    const cache = new CredentialCache();
    const rows = table({ h1: 'key-1' });
    expect(await cache.lookup('api_key', 'h1', rows.load, idOf)).toEqual({ id: 'key-1', reads: 1 });
    expect(await cache.lookup('api_key', 'h1', rows.load, idOf)).toEqual({ id: 'key-1', reads: 1 });
    await cache.lookup('api_key', 'nope', rows.load, idOf);
    await cache.lookup('api_key', 'nope', rows.load, idOf);
    expect(rows.reads).toEqual(
      new Map([
        ['h1', 1],
        ['nope', 2],
      ]),
    );
  });

  it('reads a forgotten credential again; forgetting another kind or id changes nothing', async () => {
    const cache = new CredentialCache();
    const rows = table({ h1: 'same-id' });
    await cache.lookup('api_key', 'h1', rows.load, idOf);
    cache.forget([
      { kind: 'session', id: 'same-id' },
      { kind: 'api_key', id: 'other' },
    ]);
    await cache.lookup('api_key', 'h1', rows.load, idOf);
    expect(rows.reads.get('h1')).toBe(1);
    cache.forget([{ kind: 'api_key', id: 'same-id' }]);
    expect(await cache.lookup('api_key', 'h1', rows.load, idOf)).toEqual({
      id: 'same-id',
      reads: 2,
    });
  });

  it('does not keep a row read while a change was made (it may be the row from before)', async () => {
    const cache = new CredentialCache();
    const rows = table({ h1: 'key-1' });
    const racing = cache.lookup(
      'api_key',
      'h1',
      async (hash) => {
        const row = await rows.load(hash);
        cache.forget([{ kind: 'api_key', id: 'key-1' }]); // revoked while the read was in flight
        return row;
      },
      idOf,
    );
    expect(await racing).toEqual({ id: 'key-1', reads: 1 });
    await cache.lookup('api_key', 'h1', rows.load, idOf);
    expect(rows.reads.get('h1')).toBe(2);
  });

  it('trusts an entry for its time to live only', async () => {
    const cache = new CredentialCache(20);
    const rows = table({ h1: 'key-1' });
    await cache.lookup('api_key', 'h1', rows.load, idOf);
    await new Promise((resolve) => setTimeout(resolve, 40));
    await cache.lookup('api_key', 'h1', rows.load, idOf);
    expect(rows.reads.get('h1')).toBe(2);
  });

  it('holds at most maxEntries, dropping the oldest', async () => {
    const cache = new CredentialCache(60_000, 2);
    const rows = table({ h1: 'k1', h2: 'k2', h3: 'k3' });
    for (const hash of ['h1', 'h2', 'h3']) await cache.lookup('api_key', hash, rows.load, idOf);
    for (const hash of ['h2', 'h3', 'h1']) await cache.lookup('api_key', hash, rows.load, idOf);
    expect(rows.reads).toEqual(
      new Map([
        ['h1', 2],
        ['h2', 1],
        ['h3', 1],
      ]),
    );
  });
});
