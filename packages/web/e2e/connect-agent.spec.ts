import { existsSync, mkdirSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { createAccount, openSignedIn, type Account } from './support';

const WIDTHS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'mobile', width: 375, height: 812 },
] as const;

const PLACEHOLDER = '<your-api-key>';
const CLIENTS = ['Claude Code', 'Claude Desktop', 'Cursor', 'VS Code', 'stdio'];
const SHOTS = ['test-results/screenshots', '/tmp/helpers/connect'];

/** The MCP URL as the server itself states it (its Protected Resource Metadata). */
async function serversMcpUrl(request: APIRequestContext): Promise<string> {
  const response = await request.get('/.well-known/oauth-protected-resource/mcp');
  expect(response.status()).toBe(200);
  return ((await response.json()) as { resource: string }).resource;
}

async function personalKey(request: APIRequestContext, account: Account): Promise<string> {
  const me = await request.get('/auth/me', {
    headers: { Authorization: `Bearer ${account.token}` },
  });
  return ((await me.json()) as { apiKey: string }).apiKey;
}

/** Opens an MCP session at `url` with `headers`, as a client configured so would. */
async function initialize(
  request: APIRequestContext,
  url: string,
  headers: Record<string, string>,
) {
  return request.post(url, {
    headers: {
      ...headers,
      Accept: 'application/json, text/event-stream',
      'Content-Type': 'application/json',
    },
    data: {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'engram-e2e', version: '1.0.0' },
      },
    },
  });
}

async function copyShown(page: Page, panel: Locator): Promise<string> {
  const copy = panel.getByTestId('copy-agent-config');
  await expect(copy).toHaveText('Copy');
  await copy.click();
  await expect(copy).toHaveText('Copied');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(await panel.getByTestId('agent-config').textContent());
  return copied;
}

async function expectNoSidewaysScroll(page: Page) {
  const widths = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    viewport: document.documentElement.clientWidth,
  }));
  expect(widths.page).toBeLessThanOrEqual(widths.viewport);
}

/** Every client's choice whole in the panel, in view and not overlapping another: none cut off or hidden. */
async function expectEveryChoiceInView(panel: Locator) {
  const group = panel.getByRole('radiogroup', { name: 'MCP client' });
  await expect(group.getByRole('radio')).toHaveText(CLIENTS);
  await group.scrollIntoViewIfNeeded();
  const scrolls = await group.evaluate((element) => element.scrollWidth > element.clientWidth);
  expect(scrolls).toBe(false);
  const card = (await panel.boundingBox())!;
  const boxes = [];
  for (const name of CLIENTS) {
    const choice = group.getByRole('radio', { name, exact: true });
    await expect(choice).toBeInViewport({ ratio: 1 });
    const box = (await choice.boundingBox())!;
    expect(box.x, name).toBeGreaterThanOrEqual(card.x);
    expect(box.x + box.width, name).toBeLessThanOrEqual(card.x + card.width);
    // The label fits its segment: no text cut off.
    const clipped = await choice.evaluate((element) => element.scrollWidth > element.clientWidth);
    expect(clipped, name).toBe(false);
    boxes.push(box);
  }
  for (const [i, a] of boxes.entries()) {
    for (const b of boxes.slice(i + 1)) {
      const apart =
        a.x + a.width <= b.x ||
        b.x + b.width <= a.x ||
        a.y + a.height <= b.y ||
        b.y + b.height <= a.y;
      expect(apart).toBe(true);
    }
  }
}

async function shot(panel: Locator, name: string) {
  for (const dir of SHOTS) {
    mkdirSync(dir, { recursive: true });
    await panel.screenshot({ path: `${dir}/${name}.png` });
  }
}

for (const viewport of WIDTHS) {
  test.describe(`Connect an agent at ${viewport.width}px`, () => {
    test.use({
      viewport: { width: viewport.width, height: viewport.height },
      permissions: ['clipboard-read', 'clipboard-write'],
    });

    test("the dashboard gives this server's MCP URL and a configuration that connects", async ({
      page,
      request,
    }) => {
      const account = await createAccount(request, `connect-${viewport.name}`);
      await openSignedIn(page, account, '/dashboard');
      const panel = page.getByRole('region', { name: 'Connect an agent' });
      await expect(panel).toBeVisible();

      const mcpUrl = await serversMcpUrl(request);
      await expect(panel.getByTestId('mcp-url')).toHaveText(mcpUrl);
      await panel.getByRole('button', { name: 'Copy MCP URL' }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(mcpUrl);

      // Claude Code first: one command with the URL and the key as a bearer header.
      await expect(panel.getByRole('radio', { name: 'Claude Code' })).toBeChecked();
      const command = await copyShown(page, panel);
      const [, url, header] =
        /^claude mcp add --transport http engram (\S+) --header "([^"]+)"$/.exec(command) ?? [];
      expect(url).toBe(mcpUrl);
      expect(header).toBe(`Authorization: Bearer ${PLACEHOLDER}`);
      expect(command).not.toMatch(/eng_key_/);

      // With the placeholder replaced by a real key, the copied command's URL and header connect.
      const key = await personalKey(request, account);
      const [name, value] = header!.replace(PLACEHOLDER, key).split(': ');
      expect((await initialize(request, url!, { [name!]: value! })).status()).toBe(200);
      expect((await initialize(request, url!, {})).status()).toBe(401);

      // On a phone the long command scrolls inside its block; the page never widens.
      const block = panel.getByTestId('agent-config');
      if (viewport.name === 'mobile') {
        const overflow = await block.evaluate((pre) => pre.scrollWidth > pre.clientWidth);
        expect(overflow).toBe(true);
      }
      await expectNoSidewaysScroll(page);
      // All five clients in view at once, none hidden off to the side (on a phone: two rows).
      await expectEveryChoiceInView(panel);
      await shot(panel, `connect-agent-claude-code-${viewport.name}`);

      // Claude Desktop: its config file starts `npx mcp-remote <the MCP URL>`, which signs in
      // through the browser (OAuth): no key in the file (mcp-remote.spec.ts runs this very command).
      await panel.getByRole('radio', { name: 'Claude Desktop' }).click();
      await expect(panel.getByRole('radio', { name: 'Claude Desktop' })).toBeChecked();
      await expect(panel.getByText(/claude_desktop_config\.json/)).toBeVisible();
      const desktop = JSON.parse(await copyShown(page, panel));
      expect(desktop).toEqual({
        mcpServers: { engram: { command: 'npx', args: ['-y', 'mcp-remote', mcpUrl] } },
      });
      await expect(panel.getByText(/No key in this file/)).toBeVisible();
      await expect(panel.getByText(PLACEHOLDER)).toHaveCount(0);
      await expectNoSidewaysScroll(page);
      await expectEveryChoiceInView(panel);
      await shot(panel, `connect-agent-claude-desktop-${viewport.name}`);

      await panel.getByRole('radio', { name: 'Cursor' }).click();
      await expect(panel.getByText(/~\/\.cursor\/mcp\.json/)).toBeVisible();
      const cursor = JSON.parse(await copyShown(page, panel));
      expect(cursor.mcpServers.engram).toEqual({
        url: mcpUrl,
        headers: { Authorization: `Bearer ${PLACEHOLDER}` },
      });

      await panel.getByRole('radio', { name: 'VS Code' }).click();
      const vscode = JSON.parse(await copyShown(page, panel));
      expect(vscode.servers.engram).toMatchObject({ type: 'http', url: mcpUrl });
      await expectNoSidewaysScroll(page);
      await shot(panel, `connect-agent-vscode-${viewport.name}`);
      await page.evaluate(() => window.scrollTo(0, 0));
      mkdirSync('/tmp/helpers/connect', { recursive: true });
      await page.screenshot({
        path: `/tmp/helpers/connect/dashboard-${viewport.name}.png`,
        fullPage: true,
      });
    });

    test('a new memory shows the panel first, and Settings’ “How to connect an app” lands on it', async ({
      page,
      request,
    }) => {
      const account = await createAccount(request, `connect-first-${viewport.name}`);
      await openSignedIn(page, account, '/dashboard');
      const panel = page.getByRole('region', { name: 'Connect an agent' });
      const totals = page.getByText('Total Entities');
      await expect(totals).toBeVisible();
      const [panelBox, totalsBox] = [await panel.boundingBox(), await totals.boundingBox()];
      expect(panelBox!.y).toBeLessThan(totalsBox!.y);
      await page.screenshot({
        path: `test-results/screenshots/dashboard-connect-first-${viewport.name}.png`,
      });

      await page.goto('/settings');
      await page.getByRole('link', { name: 'How to connect an app' }).click();
      await expect(page).toHaveURL(/\/dashboard#connect$/);
      await expect(panel).toBeInViewport();
    });

    test('the API Keys screen has the panel too, with `engram mcp` over stdio and this machine’s folders', async ({
      page,
      request,
    }) => {
      const account = await createAccount(request, `connect-keys-${viewport.name}`);
      await openSignedIn(page, account, '/api-keys');
      await expect(page.getByText('No API keys yet')).toBeVisible();
      const panel = page.getByRole('region', { name: 'Connect an agent' });
      await expect(panel.getByTestId('mcp-url')).toHaveText(await serversMcpUrl(request));

      await panel.getByRole('radio', { name: 'stdio' }).click();
      // The suite's server runs on loopback without PUBLIC_URL, on this machine: the snippet
      // names its real entry point and data folder instead of /path/to/engram.
      await expect(panel.getByTestId('agent-config')).not.toContainText('/path/to/engram');
      const stdio = JSON.parse(await copyShown(page, panel));
      const { engram } = stdio.mcpServers;
      expect(engram).toMatchObject({ command: 'node', env: { ENGRAM_API_KEY: PLACEHOLDER } });
      const [main, ...args] = engram.args as string[];
      expect(args).toEqual(['mcp']);
      expect(isAbsolute(main!)).toBe(true);
      expect(main).toMatch(/\/packages\/server\/dist\/main\.js$/);
      expect(existsSync(main!)).toBe(true);
      if (process.env.E2E_DATA_DIR) expect(engram.env.DATA_DIR).toBe(process.env.E2E_DATA_DIR);
      expect(isAbsolute(engram.env.DATA_DIR)).toBe(true);

      // Where the key comes from: links to both places a key is found.
      await expect(panel.getByRole('link', { name: 'Settings' })).toHaveAttribute(
        'href',
        '/settings',
      );
      await expect(panel.getByRole('link', { name: 'API Keys' })).toHaveAttribute(
        'href',
        '/api-keys',
      );
      await expectNoSidewaysScroll(page);
      await shot(panel, `connect-agent-stdio-${viewport.name}`);
      await page.evaluate(() => window.scrollTo(0, 0));
      mkdirSync('/tmp/helpers/connect', { recursive: true });
      await page.screenshot({
        path: `/tmp/helpers/connect/api-keys-empty-${viewport.name}.png`,
        fullPage: true,
      });
    });
  });
}
