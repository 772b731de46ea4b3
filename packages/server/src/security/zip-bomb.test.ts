import { once } from 'node:events';
import { createDeflateRaw } from 'node:zlib';
import { strToU8, unzipSync, zipSync } from 'fflate';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountIdOf, as, createTestApp, signUp, type TestApp } from '../test/harness.js';

// Hardening IV, item 2, and the export half of item 1. The Markdown import
// summed the sizes a zip's headers declare, then inflated every entry to its
// real size: one compressed body named by many entries cost seconds each.
// Now each note's bytes must be its own, it is inflated only up to the size
// it declares, and the inflating runs in a worker thread while the server
// answers. The Markdown export's file names cost work quadratic in a name's
// length (rows stored before today's name limit) and in names sharing a base.

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function account() {
  const { token, user } = await signUp(t.app);
  return { call: as(t.app, token), accountId: await accountIdOf(t, user.id) };
}

type Call = ReturnType<typeof as>;

const importZip = (call: Call, bytes: Uint8Array) =>
  call({
    method: 'POST',
    url: '/api/import?format=markdown',
    headers: { 'content-type': 'application/zip' },
    payload: Buffer.from(bytes),
  });

async function entityCount(call: Call): Promise<number> {
  const response = await call({ method: 'GET', url: '/api/export' });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ entities: unknown[] }>().entities.length;
}

function expectRefused(response: LightMyRequestResponse, field: string, words: string) {
  expect(response.statusCode, response.body).toBe(400);
  const body = response.json<{ error: string; details: { field: string }[] }>();
  expect(body.details[0]!.field).toBe(field);
  expect(body.error).toContain(words);
}

/** `bytes` of one repeated byte, raw-deflated a megabyte at a time (never held whole). */
async function deflatedRun(bytes: number, fill = 0): Promise<Buffer> {
  const deflate = createDeflateRaw({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const megabyte = Buffer.alloc(1024 * 1024, fill);
  for (let left = bytes; left > 0; left -= megabyte.length) {
    if (!deflate.write(left >= megabyte.length ? megabyte : megabyte.subarray(0, left))) {
      await once(deflate, 'drain');
    }
  }
  deflate.end();
  await once(deflate, 'end');
  return Buffer.concat(chunks);
}

/** A local entry: its header (sizes as declared) and its data. */
interface Local {
  name: string;
  method: number;
  data: Uint8Array;
  size: number;
}

/** A central directory entry: what it declares, and the local header it points at. */
interface Central {
  name: string;
  method: number;
  compressed: number;
  size: number;
  offset: number;
}

/**
 * A zip written field by field, so its central directory may say what a zip
 * writer never would. `directory` gets each local entry's offset.
 */
function handMadeZip(locals: Local[], directory: (offsets: number[]) => Central[]): Uint8Array {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let at = 0;
  for (const local of locals) {
    const name = Buffer.from(local.name);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(0x800, 6);
    header.writeUInt16LE(local.method, 8);
    header.writeUInt32LE(local.data.length, 18);
    header.writeUInt32LE(local.size, 22);
    header.writeUInt16LE(name.length, 26);
    offsets.push(at);
    parts.push(header, name, Buffer.from(local.data));
    at += header.length + name.length + local.data.length;
  }
  const start = at;
  const entries = directory(offsets);
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(0x800, 8);
    header.writeUInt16LE(entry.method, 10);
    header.writeUInt32LE(entry.compressed, 20);
    header.writeUInt32LE(entry.size, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE(entry.offset, 42);
    parts.push(header, name);
    at += header.length + name.length;
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(at - start, 12);
  end.writeUInt32LE(start, 16);
  parts.push(end);
  return new Uint8Array(Buffer.concat(parts));
}

/** Each local entry named once, by what its header says. */
const honestDirectory = (locals: Local[]) => (offsets: number[]) =>
  locals.map((local, index) => ({
    name: local.name,
    method: local.method,
    compressed: local.data.length,
    size: local.size,
    offset: offsets[index]!,
  }));

describe('POST /api/import?format=markdown: a zip does bounded work whatever it declares', () => {
  it('refuses entries that share one compressed body (400 naming the entry), at once', async () => {
    const { call } = await account();
    // 100 MB of zeros deflate to about 100 KB; 50 entries at offset 0 each
    // declare 100 bytes, 5,000 in all, and used to inflate 5 GB.
    const zeros = await deflatedRun(100 * 1024 * 1024);
    const bomb = handMadeZip([{ name: 'bomb.md', method: 8, data: zeros, size: 100 }], () =>
      Array.from({ length: 50 }, (_, n) => ({
        name: `n${n}.md`,
        method: 8,
        compressed: zeros.length,
        size: 100,
        offset: 0,
      })),
    );
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const started = performance.now();
    const refused = await importZip(call, bomb);
    expect(performance.now() - started).toBeLessThan(2_000);
    expectRefused(refused, 'files.n1.md', 'overlap');
    expect(await entityCount(call)).toBe(0);
  }, 60_000);

  it('refuses an entry that inflates past the size it declares, stopping there', async () => {
    const { call } = await account();
    const data = await deflatedRun(100 * 1024 * 1024, 97);
    const locals = [
      { name: 'fine.md', method: 0, data: strToU8('- hello'), size: 7 },
      { name: 'liar.md', method: 8, data, size: 100 },
    ];
    const started = performance.now();
    const refused = await importZip(call, handMadeZip(locals, honestDirectory(locals)));
    expect(performance.now() - started).toBeLessThan(2_000);
    expectRefused(refused, 'files.liar.md', 'inflates past the 100 bytes it declares');
    expect(await entityCount(call)).toBe(0);
  }, 60_000);

  it('refuses an entry whose data run past the end of the zip, or are not where it says', async () => {
    const { call } = await account();
    const locals = [{ name: 'a.md', method: 0, data: strToU8('- hello'), size: 7 }];
    const pastTheEnd = handMadeZip(locals, ([offset]) => [
      { name: 'a.md', method: 0, compressed: 1_000_000, size: 1_000_000, offset: offset! },
    ]);
    expectRefused(await importZip(call, pastTheEnd), 'files.a.md', 'past the end of the zip');
    const nowhere = handMadeZip(locals, () => [
      { name: 'a.md', method: 0, compressed: 7, size: 7, offset: 3 },
    ]);
    expectRefused(await importZip(call, nowhere), 'files.a.md', 'local header');
    expect(await entityCount(call)).toBe(0);
  });

  it('still imports an ordinary zip, leaving out hidden folders and other files', async () => {
    const { call } = await account();
    const response = await importZip(
      call,
      zipSync({
        'Alice.md': strToU8(
          '---\ntype: person\n---\n\n# Alice\n\n- works_at [[Acme]]\n- Likes tea\n',
        ),
        'orgs/Acme.md': strToU8('# Acme\n\nA company.\n'),
        'empty.md': new Uint8Array(0),
        '.obsidian/workspace.md': strToU8('- ignored'),
        'picture.png': new Uint8Array(1000),
      }),
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ entities: 3, relations: 1, observations: 2 });
  });

  it('answers /healthz while a large zip is inflating', async () => {
    const { call } = await account();
    // 48 notes of 1 MB (about 1 KB each deflated), the last one not UTF-8: the
    // whole zip is inflated and checked, then refused, so this request's
    // work is all inflating.
    const megabyte = await deflatedRun(1024 * 1024, 97);
    const locals: Local[] = Array.from({ length: 48 }, (_, n) => ({
      name: `n${String(n).padStart(2, '0')}.md`,
      method: 8,
      data: megabyte,
      size: 1024 * 1024,
    }));
    locals.push({ name: 'zz.md', method: 0, data: new Uint8Array([0xff, 0xfe]), size: 2 });
    const bytes = handMadeZip(locals, honestDirectory(locals));

    const started = performance.now();
    let took: number | undefined;
    const importing = importZip(call, bytes).then((response) => {
      took = performance.now() - started;
      return response;
    });
    const waits: number[] = [];
    while (took === undefined) {
      const asked = performance.now();
      const health = await t.app.inject({ method: 'GET', url: '/healthz' });
      expect(health.statusCode).toBe(200);
      waits.push(performance.now() - asked);
    }
    expectRefused(await importing, 'files.zz.md', 'not UTF-8');
    // Inflated on the request's thread, one /healthz waited for nearly all of it.
    expect(Math.max(...waits)).toBeLessThan(took / 2);
    expect(waits.length).toBeGreaterThan(3);
  }, 60_000);
});

describe('GET /api/export?format=markdown: file names cost bounded work', () => {
  /** Rows straight into the table: names past today's 500-character limit, stored before it. */
  async function storeEntities(accountId: string, names: string[]) {
    for (let from = 0; from < names.length; from += 1_000) {
      await t.database.db
        .insertInto('entities')
        .values(
          names.slice(from, from + 1_000).map((name) => ({
            space_id: accountId,
            name,
            type: 'legacy',
            metadata: '{}',
          })),
        )
        .execute();
    }
  }

  async function exportedNotes(call: Call) {
    const started = performance.now();
    const response = await call({ method: 'GET', url: '/api/export?format=markdown' });
    const took = performance.now() - started;
    expect(response.statusCode, response.body).toBe(200);
    return { took, files: unzipSync(new Uint8Array(response.rawPayload)) };
  }

  it('exports a 200,000-character name quickly, under a 200-byte file name, the name whole inside', async () => {
    const { call, accountId } = await account();
    const name = 'Long name. '.repeat(20_000).trim();
    await storeEntities(accountId, [name]);
    const { took, files } = await exportedNotes(call);
    expect(took).toBeLessThan(3_000);
    const [file] = Object.keys(files);
    expect(Buffer.byteLength(file!)).toBeLessThanOrEqual(203);
    expect(file).toMatch(/^Long name\. Long name\..*\.md$/);
    expect(new TextDecoder().decode(files[file!])).toContain(`# ${name}\n`);
  }, 60_000);

  it('numbers names that share a file name as fast as names that do not', async () => {
    // 8,192 names alike but for case share one file name, as names sharing
    // their first 200 bytes do.
    const word = 'consolidation';
    const count = 2 ** word.length;
    const alike = Array.from({ length: count }, (_, n) =>
      [...word].map((letter, at) => (n & (1 << at) ? letter.toUpperCase() : letter)).join(''),
    );
    const shared = await account();
    const distinct = await account();
    await storeEntities(shared.accountId, alike);
    await storeEntities(
      distinct.accountId,
      alike.map((_, n) => `${word} ${n}`),
    );
    const baseline = await exportedNotes(distinct.call);
    const numbered = await exportedNotes(shared.call);
    const names = Object.keys(numbered.files);
    expect(names).toHaveLength(count);
    expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(count);
    expect(names.filter((name) => name.toLowerCase() === `${word} (${count}).md`)).toHaveLength(1);
    // Each name used to try every number taken before it: quadratic in the names.
    expect(numbered.took).toBeLessThan(baseline.took * 2 + 1_000);
  }, 120_000);
});
