import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { PASSWORD, saveScreenshot, uniqueEmail } from './support';

// A desktop chat app's way in (docs/connect.md): the Connect an agent
// panel's Claude Desktop snippet, `npx -y mcp-remote <url>` with the real npm
// package, run exactly as the panel shows it, connects to the MCP address the
// start banner prints and runs Engram's OAuth flow in the browser. A person
// signed in at the printed address goes straight to the consent screen (one
// origin: issue 58, item 1), allows, and the app lists the tools and writes
// memory (issue 58, item 5).

const SERVER_MAIN = fileURLToPath(new URL('../../server/dist/main.js', import.meta.url));
const WEB_DIST = fileURLToPath(new URL('../dist', import.meta.url));
/** packages/web, whose devDependency `mcp-remote` is what `npx` runs here (no download). */
const WEB_PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const MCP_REMOTE_BIN = fileURLToPath(
  new URL('../../../node_modules/.bin/mcp-remote', import.meta.url),
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

test('Claude Desktop’s snippet, run as shown, connects from the banner’s address through OAuth, without a second sign-in', async ({
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

    // The command comes from the dashboard's Connect an agent panel, as a person copies it.
    await page.goto(`${origin}/dashboard`);
    const panel = page.getByRole('region', { name: 'Connect an agent' });
    await panel.getByRole('radio', { name: 'Claude Desktop' }).click();
    const snippet = JSON.parse((await panel.getByTestId('agent-config').textContent())!) as {
      mcpServers: { engram: { command: string; args: string[] } };
    };
    const { command, args } = snippet.mcpServers.engram;
    expect([command, ...args]).toEqual(['npx', '-y', 'mcp-remote', mcpUrl]);
    await saveScreenshot(page, 'mcp-remote-claude-desktop-snippet');

    // The same server on this machine, without PUBLIC_URL: the stdio snippet names its real
    // entry point and data folder (issue 58, item 6).
    await panel.getByRole('radio', { name: 'stdio' }).click();
    await expect(panel.getByTestId('agent-config')).toContainText(dataDir);
    const stdio = JSON.parse((await panel.getByTestId('agent-config').textContent())!) as {
      mcpServers: { engram: { args: string[]; env: Record<string, string> } };
    };
    expect(stdio.mcpServers.engram.args).toEqual([SERVER_MAIN, 'mcp']);
    expect(stdio.mcpServers.engram.env['DATA_DIR']).toBe(dataDir);

    // `npx` finds the devDependency in node_modules: the real package, no download.
    expect(existsSync(MCP_REMOTE_BIN)).toBe(true);
    remote = spawn(command, args, {
      cwd: WEB_PACKAGE,
      // Its own process group: npx and the mcp-remote it starts end together.
      detached: true,
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
    expect(names).toHaveLength(18);

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
    // The whole group: npx may have ended while the mcp-remote it started runs on.
    if (remote?.pid !== undefined) {
      try {
        process.kill(-remote.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    server.kill('SIGTERM');
    await once(server, 'exit').catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
    await rm(authDir, { recursive: true, force: true });
  }
});
