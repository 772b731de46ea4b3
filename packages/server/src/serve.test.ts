import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engramCommand } from './test/server-process.js';

// `engram serve` as `npm start` runs it (development logging, embedded
// database): what a person sees in the terminal.

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'engram-serve-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

async function eventually(check: () => boolean, what: string) {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.skipIf(process.env.TEST_DATABASE_URL)('engram serve', { timeout: 120_000 }, () => {
  it('prints one banner with every address and the database, then no line per request', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
    };
    for (const name of ['LOG_LEVEL', 'NODE_ENV', 'DATABASE_URL', 'PUBLIC_URL']) delete env[name];
    const child = spawn(process.execPath, [...engramCommand, 'serve'], { env });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await eventually(() => output.includes('Ctrl+C stops.'), 'the banner');
      const url = /Web app {3}(http:\/\/127\.0\.0\.1:\d+)\//.exec(output)?.[1];
      expect(url).toBeDefined();
      expect(output).toContain(`  API docs  ${url}/docs\n`);
      expect(output).toContain(`  MCP       ${url}/mcp\n`);
      expect(output).toContain(`  Database  PGlite (embedded), data folder ${dataDir}\n`);
      expect(output).not.toContain('Server listening');

      for (const path of ['/healthz', '/api/entities', '/docs', '/no-such-page']) {
        await fetch(`${url}${path}`).then((response) => response.arrayBuffer());
      }
      child.kill('SIGTERM');
      await exited;
      const banner = output.slice(output.indexOf('Engram is running'));
      expect(banner.split('\n').filter((line) => line.includes('Engram is running'))).toHaveLength(
        1,
      );
      expect(output).not.toMatch(/healthz|api\/entities|incoming request|request completed/);
      // "Warnings and errors only", as the banner says, up to the last line.
      expect(output).toContain('Stopping (SIGTERM)…');
      expect(output).not.toMatch(/INFO|"level":30|shutting down|Server closing/);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
