import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { createAccount, openSignedIn, type Account } from './support';

/*
 * History (docs/history.md) in Chromium against the real server: the entity
 * page's History tab lists what happened and reverts a call; the Graph view
 * shows the graph as it was at an earlier time.
 */

async function call(
  request: APIRequestContext,
  account: Account,
  method: 'post' | 'put',
  path: string,
  data: unknown,
): Promise<{ id: string }> {
  const response = await request[method](path, {
    headers: { Authorization: `Bearer ${account.token}` },
    data,
  });
  expect(response.ok(), `${method.toUpperCase()} ${path}: ${await response.text()}`).toBe(true);
  return (await response.json()) as { id: string };
}

const changes = (page: Page) => page.getByTestId('history-change');

test.describe('History', () => {
  test('the History tab lists the changes and reverts a rename', async ({ page, request }) => {
    const account = await createAccount(request, 'history');
    const alice = await call(request, account, 'post', '/api/entities', {
      name: 'Alice',
      type: 'person',
    });
    await call(request, account, 'put', `/api/entities/${alice.id}`, {
      name: 'Alicia',
      type: 'person',
    });
    await call(request, account, 'post', `/api/entities/${alice.id}/observations`, {
      observations: [
        { content: 'Leads the platform team', validFrom: '2024-01-15', validTo: '2025-03-31' },
      ],
    });

    await openSignedIn(page, account, `/entities/${alice.id}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Alicia' })).toBeVisible();
    await page.getByRole('tab', { name: 'History' }).click();
    await expect(page).toHaveURL(/\?tab=history$/);

    // Newest first: the observation, the rename, the creation; each by the signed-in person.
    await expect(changes(page)).toHaveCount(3);
    await expect(changes(page).nth(0)).toContainText('Added observation');
    await expect(changes(page).nth(0)).toContainText('Leads the platform team');
    await expect(changes(page).nth(1)).toContainText('Renamed Alice → Alicia');
    await expect(changes(page).nth(2)).toContainText('Created');
    await expect(changes(page).nth(2)).toContainText('just now');
    await expect(changes(page).nth(2)).toContainText('Ada Lovelace');

    await changes(page)
      .nth(1)
      .getByRole('button', { name: /^Revert/ })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Revert this change?' });
    await expect(dialog).toContainText('undoes the whole call');
    await dialog.getByRole('button', { name: 'Revert' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByText('Reverted 1 change')).toBeVisible();

    // The name is back; the revert is itself a change at the top of the list.
    await expect(page.getByRole('heading', { level: 1, name: 'Alice' })).toBeVisible();
    await expect(changes(page)).toHaveCount(4);
    await expect(changes(page).nth(0)).toContainText('Renamed Alicia → Alice');

    // The observation added after the rename is still there.
    await page.getByRole('tab', { name: 'Overview' }).click();
    const observations = page.getByRole('list', { name: 'Observations' });
    await expect(observations).toContainText('Leads the platform team');
    // When the fact held, as its writer said.
    await expect(observations).toContainText('valid Jan 15, 2024 → Mar 31, 2025');
  });

  test('a revert that meets a later change is refused, saying what changed', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'history-conflict');
    const bob = await call(request, account, 'post', '/api/entities', {
      name: 'Bob',
      type: 'person',
    });
    await call(request, account, 'put', `/api/entities/${bob.id}`, {
      name: 'Robert',
      type: 'person',
    });
    await call(request, account, 'put', `/api/entities/${bob.id}`, {
      name: 'Rob',
      type: 'person',
    });

    await openSignedIn(page, account, `/entities/${bob.id}?tab=history`);
    await expect(changes(page)).toHaveCount(3);
    await expect(changes(page).nth(1)).toContainText('Renamed Bob → Robert');
    await changes(page)
      .nth(1)
      .getByRole('button', { name: /^Revert/ })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Revert this change?' });
    await dialog.getByRole('button', { name: 'Revert' }).click();
    await expect(dialog.getByRole('alert')).toContainText('Cannot revert');
    await expect(dialog.getByRole('list', { name: 'What changed since' })).toContainText('Rob');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Rob' })).toBeVisible();
  });

  test('the Graph view shows the graph as of an earlier time', async ({ page, request }) => {
    const account = await createAccount(request, 'history-graph');
    await call(request, account, 'post', '/api/entities', { name: 'Early', type: 'concept' });
    // A moment strictly between the two entities (the server and this test share a clock).
    await page.waitForTimeout(1_100);
    const between = new Date().toISOString();
    await page.waitForTimeout(1_100);
    await call(request, account, 'post', '/api/entities', { name: 'Late', type: 'concept' });

    await openSignedIn(page, account, '/graph');
    await expect(page.getByTestId('graph-stat-nodes')).toHaveText('2');
    await expect(page.getByText(/Showing the graph as of/)).toBeHidden();

    // A moment can be linked: the address carries it.
    await page.goto(`/graph?asOf=${encodeURIComponent(between)}`);
    await expect(page.getByText(/Showing the graph as of/)).toBeVisible();
    await expect(page.getByTestId('graph-stat-nodes')).toHaveText('1');
    await expect(page.getByTestId('graph-canvas')).toHaveAttribute('data-nodes', '1');

    await page.getByRole('button', { name: 'Back to now' }).click();
    await expect(page).toHaveURL(/\/graph$/);
    await expect(page.getByTestId('graph-stat-nodes')).toHaveText('2');

    // The date-time field: two minutes ago, before either entity existed.
    const earlier = new Date(Date.now() - 2 * 60_000);
    const pad = (value: number) => String(value).padStart(2, '0');
    const local = `${earlier.getFullYear()}-${pad(earlier.getMonth() + 1)}-${pad(earlier.getDate())}T${pad(earlier.getHours())}:${pad(earlier.getMinutes())}`;
    await page.getByLabel('Date and time').fill(local);
    await expect(page).toHaveURL(/asOf=/);
    await expect(page.getByText('The graph was empty then')).toBeVisible();
    await expect(page.getByTestId('graph-stat-nodes')).toHaveText('0');
  });

  test('at 375 px the History tab and the past graph do not scroll sideways', async ({
    page,
    request,
  }) => {
    await page.setViewportSize({ width: 375, height: 812 });
    const account = await createAccount(request, 'history-narrow');
    const entity = await call(request, account, 'post', '/api/entities', {
      name: 'A rather long entity name that has to wrap on a phone',
      type: 'concept',
      metadata: { source: 'https://example.com/a/very/long/address/that/should/wrap/too' },
      observations: ['An observation long enough to wrap onto a second line on a phone screen'],
    });
    await call(request, account, 'put', `/api/entities/${entity.id}`, {
      name: 'Renamed to another rather long name that wraps',
      type: 'concept',
    });
    const sideways = () =>
      page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);

    await openSignedIn(page, account, `/entities/${entity.id}?tab=history`);
    await expect(changes(page)).toHaveCount(2);
    expect(await sideways()).toBe(false);

    await page.goto(`/graph?asOf=${encodeURIComponent(new Date().toISOString())}`);
    await expect(page.getByText(/Showing the graph as of/)).toBeVisible();
    expect(await sideways()).toBe(false);
  });

  // A time before the history kept (past the compaction horizon) cannot be made on a fresh
  // account; the Graph's inline 400 is covered by graph-page.test.tsx.

  test('the pricing cards say how long each plan keeps history', async ({ page }) => {
    await page.goto('/pricing');
    await expect(page.getByRole('article', { name: 'Free' })).toContainText('History kept 7 days');
    await expect(page.getByRole('article', { name: 'Starter' })).toContainText(
      'History kept 30 days',
    );
    await expect(page.getByRole('article', { name: 'Pro' })).toContainText('History kept 90 days');
    await expect(page.getByRole('article', { name: 'Power User' })).toContainText(
      'History kept 1 year',
    );
  });
});
