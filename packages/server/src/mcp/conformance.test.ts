import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, request as forward, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, signUp, type TestApp } from '../test/harness.js';

// The official MCP conformance suite's server scenarios that apply to a
// server without the suite's test tools, run against /mcp. Results are
// listed in docs/mcp-conformance.md.
//
// The suite connects without credentials and has no option to send one, so
// it talks to a loopback proxy that adds `Authorization: Bearer <key>` and
// passes everything else (Host and Origin included) through unchanged.
// It imports `fs.globSync` (Node 22); on Node 20 the preload
// conformance/node20.mjs supplies it from the `glob` package.
const run = promisify(execFile);
const suite = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);
const preload = fileURLToPath(new URL('./conformance/node20.mjs', import.meta.url));

const SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'resources-list',
  'resources-subscribe',
  'resources-unsubscribe',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

let t: TestApp;
let proxy: Server;
let proxyUrl: string;
let outDir: string;

beforeAll(async () => {
  t = await createTestApp();
  const target = new URL(await t.app.listen({ port: 0, host: '127.0.0.1' }));
  const { user } = await signUp(t.app);
  proxy = createServer((incoming, outgoing) => {
    const upstream = forward(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, authorization: `Bearer ${user.apiKey}` },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    outgoing.on('close', () => upstream.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}/mcp`;
  outDir = await mkdtemp(join(tmpdir(), 'engram-conformance-'));
});

afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((resolve) => proxy?.close(resolve));
  await t?.close();
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

async function checksOf(dir: string): Promise<Check[]> {
  const found: Check[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name === 'checks.json') {
      found.push(
        ...(JSON.parse(await readFile(join(entry.parentPath, entry.name), 'utf8')) as Check[]),
      );
    }
  }
  return found;
}

describe('MCP conformance suite (server scenarios)', { timeout: 120_000 }, () => {
  it.each(SCENARIOS)('%s', async (scenario) => {
    const dir = join(outDir, scenario);
    await run(
      process.execPath,
      ['--import', preload, suite, 'server', '--url', proxyUrl, '--scenario', scenario, '-o', dir],
      { timeout: 90_000 },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      // A failing scenario exits non-zero; its checks say why.
      if (!error.stdout && !error.stderr) throw error;
    });
    const checks = await checksOf(dir);
    expect(checks.length, 'checks recorded').toBeGreaterThan(0);
    const failed = checks.filter((check) => check.status === 'FAILURE');
    expect(failed, JSON.stringify(failed, null, 2)).toEqual([]);
    console.log(`${scenario}: ${checks.map((check) => `${check.id}=${check.status}`).join(', ')}`);
  });
});
