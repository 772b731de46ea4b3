import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { createAccount, openSignedIn, saveScreenshot, type Account } from './support';

/*
 * Issue 58, items 9 and 10, in Chromium against the real server: the entity
 * page edits the entity, adds an observation and shows its metadata; its
 * delete says what goes with the entity, lands on /entities with the spec's
 * notice, and the notice's Undo brings the entity back with its observations
 * and relations. At 1280 and 375 px.
 */

async function post(
  request: APIRequestContext,
  account: Account,
  path: string,
  data: unknown,
): Promise<{ id: string }> {
  const response = await request.post(path, {
    headers: { Authorization: `Bearer ${account.token}` },
    data,
  });
  expect(response.status(), `POST ${path}: ${await response.text()}`).toBe(201);
  return (await response.json()) as { id: string };
}

async function seed(request: APIRequestContext, account: Account): Promise<string> {
  const ada = await post(request, account, '/api/entities', {
    name: 'Ada Lovelace',
    type: 'person',
    metadata: { zeta: 'given first', born: 1815, works: { notes: 'G' } },
    observations: [
      'Wrote the first published algorithm for a machine',
      'Corresponded with Charles Babbage for years',
    ],
  });
  const engine = await post(request, account, '/api/entities', {
    name: 'Analytical Engine',
    type: 'technology',
  });
  const babbage = await post(request, account, '/api/entities', {
    name: 'Charles Babbage',
    type: 'person',
  });
  const relate = (from: string, to: string, type: string) =>
    post(request, account, '/api/relations', { fromEntityId: from, toEntityId: to, type });
  await relate(ada.id, engine.id, 'depends_on');
  await relate(babbage.id, ada.id, 'relates_to');
  return ada.id;
}

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'mobile', width: 375, height: 812 },
];

async function heading(page: Page, name: string) {
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible({ timeout: 20_000 });
}

for (const viewport of VIEWPORTS) {
  test(`entity page: edit, add an observation, delete and Undo (${viewport.name})`, async ({
    page,
    request,
  }) => {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    const account = await createAccount(request, `edit-${viewport.name}`);
    const id = await seed(request, account);
    await openSignedIn(page, account, `/entities/${id}`);
    await heading(page, 'Ada Lovelace');

    // The metadata, in the order stored.
    const metadata = page.getByRole('region', { name: 'Metadata' });
    await expect(metadata.getByRole('term')).toHaveText(['zeta', 'born', 'works']);
    await expect(metadata.getByRole('definition')).toHaveText([
      'given first',
      '1815',
      '{"notes":"G"}',
    ]);
    await saveScreenshot(page, `entity-edit-${viewport.name}-1-page`);

    // Edit: the Entities screen's dialog.
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Entity' });
    const name = edit.getByLabel('Name', { exact: true });
    await expect(name).toHaveValue('Ada Lovelace');
    await name.fill('Ada King');
    await edit.getByRole('button', { name: 'Save Changes' }).click();
    await expect(edit).toBeHidden();
    await heading(page, 'Ada King');

    // Add observation.
    await page.getByRole('button', { name: 'Add observation' }).click();
    const add = page.getByRole('dialog', { name: 'Add Observation' });
    await add.getByLabel('Observation').fill('Became Countess of Lovelace in 1838');
    await saveScreenshot(page, `entity-edit-${viewport.name}-2-add-observation`);
    await add.getByRole('button', { name: 'Add Observation' }).click();
    await expect(add).toBeHidden();
    await expect(
      page.getByRole('list', { name: 'Observations' }).getByText('Became Countess of Lovelace'),
    ).toBeVisible();
    await expect(page.getByText('3 observations').first()).toBeVisible();

    // Delete: the spec's question and what goes with the entity.
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Entity' });
    await expect(confirm.getByText('Are you sure you want to delete "Ada King"?')).toBeVisible();
    await expect(
      confirm.getByText('It has 3 observations and 2 relations; they are deleted with it.'),
    ).toBeVisible();
    await saveScreenshot(page, `entity-edit-${viewport.name}-3-delete`);
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();

    // /entities, with the spec's notice and its Undo.
    await expect(page).toHaveURL(/\/entities$/);
    await heading(page, 'Entity Management');
    const notice = page.locator('[data-sonner-toast]').filter({
      hasText: 'Entity deleted successfully',
    });
    await expect(notice).toBeVisible();
    await expect(page.getByRole('article', { name: 'Ada King' })).toHaveCount(0);
    await saveScreenshot(page, `entity-edit-${viewport.name}-4-notice`);
    await notice.getByRole('button', { name: 'Undo' }).click();
    await expect(page.getByText('Delete undone')).toBeVisible();
    await expect(page.getByRole('article', { name: 'Ada King' })).toBeVisible();
    await saveScreenshot(page, `entity-edit-${viewport.name}-5-undone`);

    // Back with its observations and relations.
    await page.goto(`/entities/${id}`);
    await heading(page, 'Ada King');
    const observations = page.getByRole('list', { name: 'Observations' });
    await expect(observations.getByRole('listitem')).toHaveCount(3);
    await expect(page.getByTestId('relationship')).toHaveCount(2);
  });
}
