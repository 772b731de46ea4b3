import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { createAccount, openSignedIn, saveScreenshot, type Account } from './support';

/*
 * Issue 59 in Chromium against the real server: two entities named alike
 * become a candidate pair on /duplicates once the background finder has
 * compared them; "Merge into" says what moves before it runs, the merge
 * leaves one entity with the other's name as an alias, and the notice's
 * Undo brings the other back. The entity page lists its possible duplicates
 * and edits its aliases (409 when one is another entity's name).
 */

interface ApiEntity {
  id: string;
  name: string;
  aliases: string[];
  observationsCount: number;
}

/** Calls the REST API as `account`, failing the test on an unexpected status. */
function api(request: APIRequestContext, account: Account) {
  return async <T = ApiEntity>(
    method: string,
    path: string,
    data?: unknown,
    status?: number,
  ): Promise<T> => {
    const response = await request.fetch(path, {
      method,
      data,
      headers: { Authorization: `Bearer ${account.token}` },
    });
    if (status === undefined) {
      expect(response.ok(), `${method} ${path}: ${await response.text()}`).toBe(true);
    } else {
      expect(response.status(), `${method} ${path}`).toBe(status);
    }
    return (await response.json().catch(() => null)) as T;
  };
}

/**
 * Ada Lovelace (two observations, a relation) and ada lovelace (one each):
 * a pair the finder proposes ("same name but for case and spacing").
 */
async function seed(request: APIRequestContext, account: Account) {
  const call = api(request, account);
  const ada = await call('POST', '/api/entities', {
    name: 'Ada Lovelace',
    type: 'person',
    metadata: { born: 1815 },
    observations: ['Wrote the first published algorithm', 'Translated Menabrea’s paper'],
  });
  const lower = await call('POST', '/api/entities', {
    name: 'ada lovelace',
    type: 'person',
    observations: ['Corresponded with Charles Babbage'],
  });
  const babbage = await call('POST', '/api/entities', { name: 'Charles Babbage', type: 'person' });
  const engine = await call('POST', '/api/entities', {
    name: 'Analytical Engine',
    type: 'technology',
  });
  await call('POST', '/api/relations', {
    fromEntityId: ada.id,
    toEntityId: engine.id,
    type: 'wrote_about',
  });
  await call('POST', '/api/relations', {
    fromEntityId: lower.id,
    toEntityId: babbage.id,
    type: 'knew',
  });
  return { ada, lower, call };
}

/**
 * Waits for `locator` on a screen whose data the background finder fills in:
 * within seconds on a quiet server, but the e2e server's finder serves every
 * test's accounts at a quarter of PGlite's time, so under a full run it can
 * take minutes. The screen reads again by itself while the finder catches
 * up; a reload covers a read that came just before the finder started.
 */
async function waitForFinder(page: Page, locator: Locator) {
  await expect(async () => {
    if (!(await locator.isVisible())) await page.reload();
    await expect(locator).toBeVisible({ timeout: 5_000 });
  }).toPass({ timeout: 180_000 });
}

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'mobile', width: 375, height: 812 },
];

for (const viewport of VIEWPORTS) {
  test(`Duplicates: a pair found, merged, and the merge undone (${viewport.name})`, async ({
    page,
    request,
  }) => {
    test.setTimeout(300_000);
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    const account = await createAccount(request, `duplicates-${viewport.name}`);
    const { ada, lower, call } = await seed(request, account);

    await openSignedIn(page, account, '/duplicates');
    await expect(page.getByRole('heading', { level: 1, name: 'Duplicates' })).toBeVisible();
    // Ada holds more, so it is on the left.
    const card = page.getByRole('article', { name: 'Ada Lovelace and ada lovelace', exact: true });
    await waitForFinder(page, card);
    await expect(card.getByRole('list', { name: 'Reasons' })).toContainText(
      'same name but for case and spacing',
    );
    await expect(card.getByRole('link', { name: 'ada lovelace', exact: true })).toHaveAttribute(
      'href',
      `/entities/${lower.id}`,
    );
    await expect(card.getByText('Corresponded with Charles Babbage')).toBeVisible();
    await saveScreenshot(page, `duplicates-${viewport.name}-1-pair`);

    // The Entities screen points here.
    await page.goto('/entities');
    await page.getByRole('link', { name: 'Review duplicates (1)' }).click();
    await expect(page).toHaveURL(/\/duplicates$/);
    await expect(card).toBeVisible();

    // The merge says what moves before it runs.
    await card.getByRole('button', { name: 'Merge into Ada Lovelace', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Merge into Ada Lovelace?' });
    await expect(dialog).toContainText(
      '1 observation and 1 relation move to Ada Lovelace. “ada lovelace” is removed and becomes an alias.',
    );
    await saveScreenshot(page, `duplicates-${viewport.name}-2-confirm`);
    await dialog.getByRole('button', { name: 'Merge', exact: true }).click();

    const notice = page.locator('[data-sonner-toast]').filter({
      hasText: 'Merged “ada lovelace” into Ada Lovelace',
    });
    await expect(notice).toBeVisible();
    await expect(notice).toContainText('1 observation and 1 relation moved.');
    await expect(dialog).toBeHidden();
    await expect(card).toHaveCount(0);
    await saveScreenshot(page, `duplicates-${viewport.name}-3-merged`);

    const merged = await call('GET', `/api/entities/${ada.id}`);
    expect(merged.aliases).toEqual(['ada lovelace']);
    expect(merged.observationsCount).toBe(3);
    await call('GET', `/api/entities/${lower.id}`, undefined, 404);

    // Undo: the merge's call reverted, the entity back with what it had.
    await notice.getByRole('button', { name: 'Undo' }).click();
    await expect(page.getByText('Merge undone')).toBeVisible();
    const back = await call('GET', `/api/entities/${lower.id}`);
    expect(back.name).toBe('ada lovelace');
    expect(back.observationsCount).toBe(1);
    expect((await call('GET', `/api/entities/${ada.id}`)).aliases).toEqual([]);
    // Proposed again once the finder has compared the entity brought back.
    await waitForFinder(page, card);

    await page.goto(`/entities/${lower.id}`);
    await expect(page.getByRole('heading', { level: 1, name: 'ada lovelace' })).toBeVisible();
  });
}

test('entity page: possible duplicates, and aliases added and refused', async ({
  page,
  request,
}) => {
  test.setTimeout(300_000);
  const account = await createAccount(request, 'duplicates-entity');
  const { ada, call } = await seed(request, account);

  await openSignedIn(page, account, `/entities/${ada.id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Ada Lovelace' })).toBeVisible();
  const panel = page.getByRole('region', { name: 'Possible duplicates' });
  await waitForFinder(page, panel);
  await expect(panel.getByRole('link', { name: 'ada lovelace', exact: true })).toBeVisible();

  const aliases = page.getByRole('region', { name: 'Aliases' });
  const field = aliases.getByRole('textbox', { name: 'New alias' });
  await field.fill('Countess of Lovelace');
  await aliases.getByRole('button', { name: 'Add' }).click();
  await expect(aliases.getByRole('listitem')).toHaveText(['Countess of Lovelace']);
  expect((await call('GET', `/api/entities/${ada.id}`)).aliases).toEqual(['Countess of Lovelace']);

  // Another entity's name: the server refuses, and says so beside the field.
  await field.fill('Charles Babbage');
  await aliases.getByRole('button', { name: 'Add' }).click();
  await expect(aliases.getByRole('alert')).toBeVisible();
  await expect(aliases.getByRole('listitem')).toHaveText(['Countess of Lovelace']);
  await saveScreenshot(page, 'duplicates-entity-page');

  await aliases.getByRole('button', { name: 'Remove alias Countess of Lovelace' }).click();
  await expect(aliases.getByRole('listitem')).toHaveCount(0);

  // Review opens the Duplicates screen on this entity's pairs.
  await panel.getByRole('link', { name: 'Review ada lovelace' }).click();
  await expect(page).toHaveURL(new RegExp(`/duplicates\\?entity=${ada.id}$`));
  await expect(
    page.getByRole('article', { name: 'Ada Lovelace and ada lovelace', exact: true }),
  ).toBeVisible();
});
