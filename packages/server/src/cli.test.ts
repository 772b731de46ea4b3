import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from './runtime.js';
import { testConfig } from './test/harness.js';
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

function engram(args: string[], apiKey: string) {
  return run(process.execPath, [tsx, main, ...args], { env: env(apiKey), timeout: 150_000 });
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
    expect(imported.stderr).toContain('Imported 2 entities and 1 relations.');

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
});
