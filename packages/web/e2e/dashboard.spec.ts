import { readFile } from 'node:fs/promises';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { createAccount, openSignedIn, saveScreenshot, type Account } from './support';

/** The dashboard (docs/product.md: The signed-in app, States) against the real server: true numbers, live, limits, actions. */

const PHONE = { width: 375, height: 812 };

function bearer(account: Account) {
  return { Authorization: `Bearer ${account.token}` };
}

async function createEntity(
  request: APIRequestContext,
  account: Account,
  entity: { name: string; type: string; observations?: string[]; metadata?: object },
): Promise<{ id: string; name: string; createdAt: string }> {
  const response = await request.post('/api/entities', { headers: bearer(account), data: entity });
  expect(response.status(), await response.text()).toBe(201);
  return response.json();
}

async function createRelation(
  request: APIRequestContext,
  account: Account,
  from: { id: string },
  to: { id: string },
  type: string,
) {
  const response = await request.post('/api/relations', {
    headers: bearer(account),
    data: { fromEntityId: from.id, toEntityId: to.id, type },
  });
  expect(response.status(), await response.text()).toBe(201);
  return response.json() as Promise<{ id: string }>;
}

/** The JSON-RPC answer in a Streamable HTTP reply (plain JSON or one SSE event). */
function rpcResult(body: string): { result?: { isError?: boolean }; error?: unknown } {
  const data = body.trim().startsWith('{')
    ? body
    : body
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .join('');
  return JSON.parse(data);
}

/** Calls one MCP tool as an agent would, over Streamable HTTP at /mcp. */
async function mcpTool(
  request: APIRequestContext,
  account: Account,
  name: string,
  args: Record<string, unknown>,
) {
  const headers = {
    ...bearer(account),
    Accept: 'application/json, text/event-stream',
    'Content-Type': 'application/json',
  };
  const init = await request.post('/mcp', {
    headers,
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
  expect(init.status(), await init.text()).toBe(200);
  const session = {
    ...headers,
    'Mcp-Session-Id': init.headers()['mcp-session-id'] ?? '',
    'Mcp-Protocol-Version': '2025-06-18',
  };
  await request.post('/mcp', {
    headers: session,
    data: { jsonrpc: '2.0', method: 'notifications/initialized' },
  });
  const call = await request.post('/mcp', {
    headers: session,
    data: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } },
    timeout: 60_000,
  });
  expect(call.status()).toBe(200);
  const answer = rpcResult(await call.text());
  expect(answer.error, 'JSON-RPC error').toBeUndefined();
  expect(answer.result?.isError, JSON.stringify(answer).slice(0, 500)).not.toBe(true);
  await request.delete('/mcp', { headers: session });
}

async function manyEntities(
  request: APIRequestContext,
  account: Account,
  from: number,
  to: number,
) {
  await mcpTool(request, account, 'create_entities', {
    entities: Array.from({ length: to - from }, (_, i) => ({
      name: `Bulk entity ${from + i}`,
      entityType: ['concept', 'person', 'product'][(from + i) % 3],
      observations: [],
    })),
  });
}

/** A screenshot of the dashboard itself: live notifications over it are dismissed first. */
async function screenshot(page: Page, name: string) {
  const dismiss = page.getByRole('button', { name: /^Dismiss: / });
  while ((await dismiss.count()) > 0) await dismiss.first().click();
  if (!(await page.getByText('Loading dashboard...').isVisible())) {
    await expect(page.getByTestId('operations-chart')).toBeVisible(); // loaded after the numbers
  }
  await saveScreenshot(page, name);
}

function stat(page: Page, label: string) {
  return page.getByRole('group', { name: label }).getByTestId('stat-value');
}

const today = () =>
  new Date().toLocaleDateString('en-US', {
    month: 'short',
    day: 'numeric',
    year: 'numeric',
    timeZone: 'UTC',
  });

test.describe('Dashboard', () => {
  test('an empty account: zeros, empty lists and the next plan; at desktop and phone width', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'dash-empty');
    await openSignedIn(page, account, '/dashboard');
    await expect(
      page.getByRole('heading', { level: 1, name: 'Knowledge Graph Dashboard' }),
    ).toBeVisible();
    await expect(
      page.getByText('Monitor your AI memory platform activity and insights'),
    ).toBeVisible();
    for (const label of ['Total Entities', 'Relations', 'Observations', 'API Calls Today']) {
      await expect(stat(page, label)).toHaveText('0');
    }
    await expect(page.getByText('No recent activity')).toBeVisible();
    await expect(page.getByText('No entities yet')).toBeVisible();
    await expect(page.getByText('0 / 1,000')).toBeVisible();
    await expect(page.getByText('0 / 15,000')).toBeVisible();
    await expect(page.getByText('Not available')).toBeVisible();
    await expect(page.getByRole('note', { name: 'Need more capacity?' })).toContainText(
      'Consider upgrading to Starter for $10/month.',
    );
    await expect(page.getByText('Live', { exact: true })).toHaveAttribute('data-live', 'true');
    await screenshot(page, 'dashboard-empty-desktop');
    await page.setViewportSize(PHONE);
    await expect(page.getByText('No entities yet')).toBeVisible();
    await screenshot(page, 'dashboard-empty-mobile');
  });

  test('a seeded account shows what was created, updates live, and refresh reloads', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'dash-seeded');
    const created = [];
    const types = ['person', 'person', 'company', 'technology', 'concept', 'event'];
    for (const [i, type] of types.entries()) {
      created.push(
        await createEntity(request, account, {
          name: [
            'Ada Lovelace',
            'Charles Babbage',
            'Difference Engine Co',
            'Analytical Engine',
            'Computation',
            'First program',
          ][i]!,
          type,
          observations: Array.from({ length: i % 3 }, (_, k) => `Fact ${k + 1}`),
        }),
      );
    }
    await createRelation(request, account, created[0]!, created[1]!, 'works_with');
    await createRelation(request, account, created[0]!, created[3]!, 'programmed');
    await createRelation(request, account, created[1]!, created[3]!, 'designed');
    // 6 entities and 3 relations: 9 calls, 6 observations (0+1+2+0+1+2).
    await openSignedIn(page, account, '/dashboard');
    await expect(stat(page, 'Total Entities')).toHaveText('6');
    await expect(stat(page, 'Relations')).toHaveText('3');
    await expect(stat(page, 'Observations')).toHaveText('6');
    await expect(stat(page, 'API Calls Today')).toHaveText('9');

    const activity = page.getByRole('list', { name: 'Recent activity' });
    await expect(activity.getByRole('listitem')).toHaveCount(1);
    await expect(activity.getByRole('listitem')).toContainText('6 entities created');
    await expect(activity.getByRole('listitem')).toContainText(today());

    // The five newest, newest first, each linking to its page.
    const recent = page.getByRole('list', { name: 'Recent entities' });
    await expect(recent.getByRole('link')).toHaveText([
      'First program',
      'Computation',
      'Analytical Engine',
      'Difference Engine Co',
      'Charles Babbage',
    ]);
    await expect(recent.getByRole('listitem').first()).toContainText('event');
    await expect(page.getByText('6 / 1,000')).toBeVisible();
    await expect(page.getByText('9 / 15,000')).toBeVisible();
    await screenshot(page, 'dashboard-seeded-desktop');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'dashboard-seeded-dark-desktop');
    await page.emulateMedia({ colorScheme: 'light' });

    // Live: an agent adds an entity and a relation; the open dashboard follows without a reload.
    await expect(page.getByText('Live', { exact: true })).toHaveAttribute('data-live', 'true');
    const late = await createEntity(request, account, {
      name: 'Note G',
      type: 'concept',
      observations: ['Bernoulli numbers'],
    });
    await createRelation(request, account, created[0]!, late, 'wrote');
    await expect(stat(page, 'Total Entities')).toHaveText('7');
    await expect(stat(page, 'Relations')).toHaveText('4');
    await expect(stat(page, 'Observations')).toHaveText('7');
    await expect(recent.getByRole('link').first()).toHaveText('Note G');
    await expect(activity.getByRole('listitem')).toContainText('7 entities created');

    // A read sends no graph event; Refresh picks up every call made so far (9 + 2 + 1).
    const list = await request.get('/api/entities', { headers: bearer(account) });
    expect(list.status()).toBe(200);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(stat(page, 'API Calls Today')).toHaveText('12');

    await page.setViewportSize(PHONE);
    await expect(stat(page, 'Total Entities')).toBeVisible();
    await screenshot(page, 'dashboard-seeded-mobile');
  });

  test('warns at 80% and at 95% of the plan’s entities', async ({ page, request }) => {
    test.setTimeout(90_000);
    const account = await createAccount(request, 'dash-limits');
    await manyEntities(request, account, 0, 800);
    await openSignedIn(page, account, '/dashboard');
    await expect(stat(page, 'Total Entities')).toHaveText('800');
    const approaching = page.getByRole('alert', { name: 'Approaching Limits' });
    await expect(approaching).toContainText(
      'You have used 80% of your Free plan’s 1,000 entities.',
    );
    await expect(page.getByRole('alert', { name: 'Limit Exceeded' })).toHaveCount(0);
    await expect(page.getByRole('progressbar', { name: 'Entities' })).toHaveAttribute(
      'aria-valuenow',
      '80',
    );
    await screenshot(page, 'dashboard-approaching-limits-desktop');
    await page.setViewportSize(PHONE);
    await screenshot(page, 'dashboard-approaching-limits-mobile');
    await page.setViewportSize({ width: 1280, height: 800 });

    // 150 more over MCP: the dashboard updates live to the red notice.
    await manyEntities(request, account, 800, 950);
    await expect(stat(page, 'Total Entities')).toHaveText('950');
    const exceeded = page.getByRole('alert', { name: 'Limit Exceeded' });
    await expect(exceeded).toContainText('Upgrade now to avoid service interruption.');
    await expect(approaching).toHaveCount(0);
    await expect(page.getByRole('progressbar', { name: 'Entities' })).toHaveAttribute(
      'data-over',
      'false',
    );
    await screenshot(page, 'dashboard-limit-exceeded-desktop');
    await page.setViewportSize(PHONE);
    await expect(exceeded).toBeVisible();
    await screenshot(page, 'dashboard-limit-exceeded-mobile');
  });

  test('shows the failure alert over zeroed numbers, and Refresh recovers', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'dash-fail');
    await createEntity(request, account, { name: 'Only one', type: 'concept' });
    await page.route('**/api/analytics', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ error: 'Database unavailable', code: 'SERVICE_UNAVAILABLE' }),
      }),
    );
    await openSignedIn(page, account, '/dashboard');
    await expect(page.getByText('Loading dashboard...')).toBeVisible();
    await screenshot(page, 'dashboard-loading-desktop');
    await expect(
      page.getByRole('alert').filter({ hasText: 'Failed to load dashboard data' }),
    ).toBeVisible();
    await expect(stat(page, 'Total Entities')).toHaveText('0');
    await expect(page.getByText('Free plan', { exact: true })).toBeVisible();
    await screenshot(page, 'dashboard-failed-desktop');
    await page.setViewportSize(PHONE);
    await screenshot(page, 'dashboard-failed-mobile');

    await page.unroute('**/api/analytics');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(stat(page, 'Total Entities')).toHaveText('1');
    await expect(page.getByText('Failed to load dashboard data')).toHaveCount(0);
  });

  test('quick actions go where they say', async ({ page, request }) => {
    const account = await createAccount(request, 'dash-actions');
    await openSignedIn(page, account, '/dashboard');
    const cases = [
      ['Create Entity', '/entities?create=1', /\/entities(\?|$)/],
      ['View Graph', '/graph', /\/graph$/],
      ['Search Knowledge', '/search', /\/search$/],
      ['View Full Billing Details', '/billing', /\/billing$/],
    ] as const;
    for (const [name, href, lands] of cases) {
      const link = page.getByRole('link', { name: new RegExp(name) });
      await expect(link).toHaveAttribute('href', href);
      await link.click();
      // (The entities screen may tidy its query once it has acted on it.)
      await expect(page).toHaveURL(lands);
      await page.goto('/dashboard');
      await expect(
        page.getByRole('heading', { level: 1, name: 'Knowledge Graph Dashboard' }),
      ).toBeVisible();
    }
  });

  test('Export Data shows the spec’s alert; Settings → Import/Export downloads the graph as JSON, exactly what was created', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'dash-export');
    const ada = await createEntity(request, account, {
      name: 'Ada Lovelace',
      type: 'person',
      metadata: { born: 1815 },
      observations: ['Wrote the first program', 'Translated Menabrea'],
    });
    const engine = await createEntity(request, account, {
      name: 'Analytical Engine',
      type: 'technology',
      observations: ['Designed by Babbage'],
    });
    const relation = await createRelation(request, account, ada, engine, 'programmed');
    await openSignedIn(page, account, '/dashboard');
    await expect(stat(page, 'Total Entities')).toHaveText('2');

    // Accepted as it opens: a click waits for a page that an open alert blocks.
    const alerted = new Promise<{ type: string; message: string }>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve({ type: dialog.type(), message: dialog.message() });
        void dialog.accept();
      }),
    );
    await page.getByRole('button', { name: /Export Data/ }).click();
    expect(await alerted).toEqual({
      type: 'alert',
      message: 'Export functionality will be implemented soon',
    });

    await page.goto('/settings/import-export');
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export JSON', exact: true }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^engram-export-\d{4}-\d{2}-\d{2}\.json$/);
    const document = JSON.parse(await readFile(await download.path(), 'utf8')) as {
      format: string;
      version: number;
      entities: {
        id: string;
        name: string;
        type: string;
        metadata: object;
        createdAt: string;
        observations: { content: string }[];
      }[];
      relations: { id: string; fromEntityId: string; toEntityId: string; type: string }[];
    };
    expect(document.format).toBe('engram');
    expect(document.version).toBe(1);
    const byName = Object.fromEntries(document.entities.map((entity) => [entity.name, entity]));
    expect(Object.keys(byName).sort()).toEqual(['Ada Lovelace', 'Analytical Engine']);
    expect(byName['Ada Lovelace']).toMatchObject({
      id: ada.id,
      type: 'person',
      metadata: { born: 1815 },
      createdAt: ada.createdAt,
    });
    expect(byName['Ada Lovelace']!.observations.map((o) => o.content)).toEqual([
      'Wrote the first program',
      'Translated Menabrea',
    ]);
    expect(byName['Analytical Engine']!.observations.map((o) => o.content)).toEqual([
      'Designed by Babbage',
    ]);
    expect(document.relations).toEqual([
      expect.objectContaining({
        id: relation.id,
        fromEntityId: ada.id,
        toEntityId: engine.id,
        type: 'programmed',
      }),
    ]);
  });
});
