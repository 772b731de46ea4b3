import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import { announceServer } from './db/data-lock.js';
import { createRuntime } from './runtime.js';
import { createTestApp, signUp, testConfig } from './test/harness.js';
import { unzipSync } from 'fflate';
import { callTool } from './test/mcp-client.js';

// The CLI runs as a real child process on a real data folder (embedded PGlite).
const run = promisify(execFile);
const tsx = createRequire(import.meta.url).resolve('tsx/cli');
const main = fileURLToPath(new URL('./main.ts', import.meta.url));

let dataDir: string;
const keys: string[] = [];

function env(apiKey: string) {
  return { ...process.env, DATA_DIR: dataDir, ENGRAM_API_KEY: apiKey, LOG_LEVEL: 'silent' };
}

function engram(args: string[], apiKey: string, extra: Record<string, string> = {}) {
  return run(process.execPath, [tsx, main, ...args], {
    env: { ...env(apiKey), ...extra },
    timeout: 150_000,
  });
}

/** A small basic-memory folder with an Obsidian-style note. */
async function notesFolder(): Promise<string> {
  const folder = join(dataDir, `notes-${Math.random().toString(36).slice(2)}`);
  await mkdir(join(folder, 'people'), { recursive: true });
  await writeFile(
    join(folder, 'people', 'Grace.md'),
    '---\ntitle: Grace\ntype: person\n---\n\n# Grace\n\n## Observations\n- [work] Wrote a compiler #code\n\n## Relations\n- built [[COBOL]]\n',
  );
  await writeFile(join(folder, 'COBOL.md'), 'A language. See [[Grace]].\n');
  return folder;
}

type Graph = {
  entities: { name: string; entityType: string; observations: string[] }[];
  relations: { from: string; to: string; relationType: string }[];
};

// Each case starts several processes (tsx + PGlite boot): slow on a loaded 2-core machine.
// The CLI works on the embedded database; the PostgreSQL run skips it.
describe.skipIf(process.env.TEST_DATABASE_URL)('engram CLI', { timeout: 300_000 }, () => {
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'engram-cli-'));
    const runtime = await createRuntime(testConfig({ DATA_DIR: dataDir }));
    for (const email of ['one@example.com', 'two@example.com']) {
      const { user } = await runtime.auth.register(
        {
          email,
          password: 'Password123',
          firstName: 'Cli',
          lastName: 'User',
        },
        '127.0.0.1',
      );
      keys.push(user.apiKey!);
    }
    await runtime.close();
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('imports the reference JSONL, serves it over stdio MCP, and exports it back', async () => {
    const file = join(dataDir, 'memory.jsonl');
    const lines = [
      {
        type: 'entity',
        name: 'Ada',
        entityType: 'person',
        observations: ['wrote the first program'],
      },
      { type: 'entity', name: 'Engine', entityType: 'machine', observations: [] },
      { type: 'relation', from: 'Ada', to: 'Engine', relationType: 'programmed' },
    ];
    await writeFile(file, lines.map((line) => JSON.stringify(line)).join('\n'));
    const imported = await engram(['import', file], keys[0]!);
    expect(imported.stderr).toContain('Imported 2 entities, 1 observations and 1 relations.');

    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [tsx, main, 'mcp'],
        env: env(keys[0]!) as Record<string, string>,
        stderr: 'ignore',
      }),
    );
    try {
      const graph = await callTool<Graph>(client, 'read_graph');
      expect(graph).toEqual({
        entities: [
          { name: 'Ada', entityType: 'person', observations: ['wrote the first program'] },
          { name: 'Engine', entityType: 'machine', observations: [] },
        ],
        relations: [{ from: 'Ada', to: 'Engine', relationType: 'programmed' }],
      });
      await callTool(client, 'add_observations', {
        observations: [{ entityName: 'Engine', contents: ['analytical'] }],
      });
    } finally {
      await client.close();
    }

    const exported = await engram(['export'], keys[0]!);
    expect(
      exported.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([lines[0], { ...lines[1], observations: ['analytical'] }, lines[2]]);
  });

  it('round-trips the lossless format into another account, keeping ids and dates', async () => {
    const file = join(dataDir, 'export.json');
    await engram(['export', '--format', 'json', '--output', file], keys[0]!);
    const document = JSON.parse(await readFile(file, 'utf8'));
    expect(document).toMatchObject({ format: 'engram', version: 1 });
    expect(document.entities).toHaveLength(2);

    await engram(['import', file], keys[1]!);
    const file2 = join(dataDir, 'export2.json');
    await engram(['export', '--format', 'json', '--output', file2], keys[1]!);
    const copy = JSON.parse(await readFile(file2, 'utf8'));
    expect(copy.entities).toEqual(document.entities);
    expect(copy.relations).toEqual(document.relations);
  });

  it('refuses a folder that holds no database, and creates nothing there', async () => {
    const empty = join(dataDir, 'not-here');
    const file = join(dataDir, 'one.jsonl');
    await writeFile(
      file,
      JSON.stringify({ type: 'entity', name: 'A', entityType: 't', observations: [] }),
    );
    for (const args of [
      ['mcp'],
      ['export'],
      ['import', file],
      ['plan', 'set', 'a@example.com', 'pro'],
    ]) {
      const refused = await run(process.execPath, [tsx, main, ...args], {
        env: { ...env(keys[0]!), DATA_DIR: empty },
        timeout: 150_000,
      }).catch((error: { code: number; stderr: string }) => error);
      expect(refused, args[0]).toMatchObject({
        code: 1,
        stderr: expect.stringContaining(`There is no Engram database in ${empty} (DATA_DIR)`),
      });
      expect(existsSync(empty), args[0]).toBe(false);
    }
  });

  it('refuses a bad key and a busy data folder with a clear message', async () => {
    await expect(engram(['export'], 'eng_key_wrong')).rejects.toMatchObject({
      stderr: expect.stringContaining('ENGRAM_API_KEY is not a valid'),
    });
    const runtime = await createRuntime(testConfig({ DATA_DIR: dataDir }));
    try {
      await expect(engram(['export'], keys[0]!)).rejects.toMatchObject({
        stderr: expect.stringContaining('is using the data folder'),
      });
    } finally {
      await runtime.close();
    }
  });

  it('imports Markdown notes (a folder, then its export as a zip) and mem0, and exports Markdown', async () => {
    const runtime = await createRuntime(testConfig({ DATA_DIR: dataDir }));
    const fresh: string[] = [];
    try {
      for (const email of ['three@example.com', 'four@example.com']) {
        const { user } = await runtime.auth.register(
          { email, password: 'Password123', firstName: 'Cli', lastName: 'User' },
          '127.0.0.1',
        );
        fresh.push(user.apiKey!);
      }
    } finally {
      await runtime.close();
    }
    const folder = await notesFolder();
    const first = await engram(['import', '--format', 'markdown', folder], fresh[0]!);
    expect(first.stderr).toContain('Imported 2 entities, 2 observations and 2 relations.');
    const again = await engram(['import', '--format', 'markdown', folder], fresh[0]!);
    expect(again.stderr).toContain('Imported 0 entities, 0 observations and 0 relations.');

    const zip = join(dataDir, 'notes.zip');
    await engram(['export', '--format', 'markdown', '--output', zip], fresh[0]!);
    expect(Object.keys(unzipSync(new Uint8Array(await readFile(zip)))).sort()).toEqual([
      'COBOL.md',
      'Grace.md',
    ]);
    const copy = await engram(['import', '--format', 'markdown', zip], fresh[1]!);
    expect(copy.stderr).toContain('Imported 2 entities, 2 observations and 2 relations.');
    const one = await engram(['export', '--format', 'jsonl'], fresh[0]!);
    const two = await engram(['export', '--format', 'jsonl'], fresh[1]!);
    expect(two.stdout).toBe(one.stdout);

    const mem0 = join(dataDir, 'mem0.json');
    await writeFile(
      mem0,
      JSON.stringify({ results: [{ id: 'm1', memory: 'Likes tea', user_id: 'grace' }] }),
    );
    const memories = await engram(['import', '--format', 'mem0', mem0], fresh[1]!);
    expect(memories.stderr).toContain('Imported 1 entities, 1 observations and 0 relations.');
    await expect(engram(['export', '--format', 'markdown'], fresh[1]!)).rejects.toMatchObject({
      stderr: expect.stringContaining('--output'),
    });
  });

  it('goes through the server ENGRAM_URL names, for every format', async () => {
    const t = await createTestApp();
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as { port: number };
      const { user } = await signUp(t.app);
      const remote = { ENGRAM_URL: `http://127.0.0.1:${port}` };
      const folder = await notesFolder();
      const done = await engram(['import', '--format', 'markdown', folder], user.apiKey, remote);
      expect(done.stderr).toContain('Imported 2 entities, 2 observations and 2 relations.');
      const zip = join(dataDir, 'remote.zip');
      await engram(['export', '--format', 'markdown', '--output', zip], user.apiKey, remote);
      expect(Object.keys(unzipSync(new Uint8Array(await readFile(zip)))).sort()).toEqual([
        'COBOL.md',
        'Grace.md',
      ]);
      const jsonl = await engram(['export'], user.apiKey, remote);
      expect(jsonl.stdout.trim().split('\n')).toHaveLength(4);
      const file = join(dataDir, 'remote.jsonl');
      await writeFile(file, jsonl.stdout);
      // Today's formats too: the JSONL back into another space (made on first write is not
      // asked for, so it goes to the default one, where everything is there: nothing new).
      const back = await engram(['import', file], user.apiKey, remote);
      expect(back.stderr).toContain('Imported 0 entities, 0 observations and 0 relations.');
      const refused = engram(['import', '--format', 'mem0', file], user.apiKey, remote);
      await expect(refused).rejects.toMatchObject({
        stderr: expect.stringContaining('(400)'),
      });
    } finally {
      await t.close();
    }
  });

  it('goes through the running engram serve that owns the data folder', async () => {
    const config = testConfig({ DATA_DIR: dataDir });
    const runtime = await createRuntime(config);
    const app = await buildApp({ config, runtime });
    let withdraw = () => {};
    try {
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      withdraw = announceServer(dataDir, url);
      const folder = await notesFolder();
      const done = await engram(['import', '--format', 'markdown', folder], keys[0]!);
      expect(done.stderr).toContain('Imported 2 entities, 2 observations and 2 relations.');
      const zip = join(dataDir, 'relayed.zip');
      await engram(['export', '--format', 'markdown', '--output', zip], keys[0]!);
      expect(Object.keys(unzipSync(new Uint8Array(await readFile(zip)))).sort()).toEqual([
        'Ada.md',
        'COBOL.md',
        'Engine.md',
        'Grace.md',
      ]);
      const json = await engram(['export', '--format', 'json'], keys[0]!);
      expect(JSON.parse(json.stdout).entities).toHaveLength(4);
    } finally {
      withdraw();
      await app.close();
      await runtime.close();
    }
  });
});
