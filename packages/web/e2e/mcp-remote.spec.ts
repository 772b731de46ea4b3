import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { PASSWORD, saveScreenshot, uniqueEmail } from './support';

// A desktop chat app's way in (docs/connect.md): `npx mcp-remote <url>`, the
// real npm package, connects to the MCP address the start banner prints and
// runs Engram's OAuth flow in the browser. A person signed in at the printed
// address goes straight to the consent screen (one origin: issue 58, item 1),
// allows, and the app lists the tools and writes memory.

const SERVER_MAIN = fileURLToPath(new URL('../../server/dist/main.js', import.meta.url));
const WEB_DIST = fileURLToPath(new URL('../dist', import.meta.url));
const MCP_REMOTE = fileURLToPath(
  new URL('../../../node_modules/mcp-remote/dist/proxy.js', import.meta.url),
);

async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  await once(probe, 'close');
  if (address === null || typeof address === 'string') throw new Error('No free port found');
  return address.port;
}

/** Collects a child's output and waits for a pattern in it. */
function watch(stream: NodeJS.ReadableStream) {
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return {
    text: () => text,
    async match(pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = pattern.exec(text);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`${pattern} never came; got:\n${text}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  };
}

/** JSON-RPC over a stdio MCP client's pipes: one request, its answer. */
function rpc(child: ChildProcessWithoutNullStreams, out: ReturnType<typeof watch>) {
  let next = 1;
  return async (method: string, params: Record<string, unknown> = {}) => {
    const id = next++;
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    const [line] = await out.match(new RegExp(`^\\{.*"id":${id}[,}].*$`, 'm'), 90_000);
    return JSON.parse(line) as { result?: Record<string, unknown>; error?: unknown };
  };
}

test('mcp-remote connects from the banner’s address through OAuth, without a second sign-in', async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const dataDir = await mkdtemp(join(tmpdir(), 'engram-e2e-mcp-remote-'));
  const authDir = await mkdtemp(join(tmpdir(), 'engram-e2e-mcp-auth-'));
  const server = spawn(process.execPath, [SERVER_MAIN, 'serve'], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      DATA_DIR: dataDir,
      WEB_DIST_DIR: WEB_DIST,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'development',
    },
  });
  let remote: ChildProcessWithoutNullStreams | undefined;
  try {
    // What a person reads in the terminal is where everything starts.
    const banner = watch(server.stdout);
    const [, webApp] = await banner.match(/Web app\s+(\S+)/, 90_000);
    const [, mcpUrl] = await banner.match(/MCP\s+(\S+)/);
    const origin = new URL(webApp!).origin;

    const email = uniqueEmail('mcp-remote');
    const signUp = await request.post(`${origin}/auth/register`, {
      data: { email, password: PASSWORD, firstName: 'Remote', lastName: 'Agent' },
    });
    expect(signUp.status()).toBe(201);
    // Signed in at the printed address, as after the login form.
    const login = await request.post(`${origin}/auth/login`, {
      data: { email, password: PASSWORD },
    });
    const { token } = (await login.json()) as { token: string };
    await page.goto(`${origin}/pricing`);
    await page.evaluate((value) => localStorage.setItem('auth_token', value), token);

    remote = spawn(process.execPath, [MCP_REMOTE, mcpUrl!, String(await freePort())], {
      env: { ...process.env, MCP_REMOTE_CONFIG_DIR: authDir, DISPLAY: '', BROWSER: 'false' },
    });
    const said = watch(remote.stderr);
    const answers = watch(remote.stdout);
    const call = rpc(remote, answers);
    const initialized = call('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'e2e-desktop-app', version: '1.0.0' },
    });

    const [, authorizeUrl] = await said.match(/Please authorize this client by visiting:\s+(\S+)/);
    expect(new URL(authorizeUrl!).origin).toBe(origin);
    await page.goto(authorizeUrl!);
    // No second sign-in: the consent screen, on the same origin.
    await expect(page).toHaveURL(new RegExp(`^${origin}/oauth/consent\\?uid=`));
    await expect(page.getByText('The default space')).toBeVisible();
    await saveScreenshot(page, 'mcp-remote-consent');
    await page.getByRole('button', { name: 'Allow' }).click();
    await expect(page).toHaveURL(/\/oauth\/callback/);

    const answer = await initialized;
    expect(answer.result?.['serverInfo']).toBeDefined();
    remote.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
    );
    const tools = await call('tools/list');
    const names = (tools.result?.['tools'] as { name: string }[]).map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['create_entities', 'recall', 'undo_last']));
    expect(names).toHaveLength(16);

    const created = await call('tools/call', {
      name: 'create_entities',
      arguments: {
        entities: [
          { name: 'Ada', entityType: 'person', observations: ['wrote the first program'] },
        ],
      },
    });
    expect(created.error).toBeUndefined();
    const listed = await request.get(`${origin}/api/entities`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(
      ((await listed.json()) as { entities: { name: string }[] }).entities.map((e) => e.name),
    ).toEqual(['Ada']);
  } finally {
    remote?.kill('SIGKILL');
    server.kill('SIGTERM');
    await once(server, 'exit').catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
    await rm(authDir, { recursive: true, force: true });
  }
});
