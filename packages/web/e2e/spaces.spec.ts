import { expect, test, type Page } from '@playwright/test';
import { choose, createAccount, openSignedIn, saveScreenshot } from './support';

/**
 * The header's switcher, named by the space it shows. The default space is
 * matched by the start of its name: the server names it.
 */
function switcher(page: Page, name: string) {
  return page.getByRole('button', {
    name: name === 'Default' ? /^Memory space: Default/ : `Memory space: ${name}`,
  });
}

async function openSwitcher(page: Page, current: string) {
  await switcher(page, current).click();
  return page.getByRole('listbox', { name: 'Spaces' });
}

test.describe('Memory spaces', () => {
  test('a space made from the switcher holds its own graph, survives a reload, and a key can be limited to it', async ({
    page,
    request,
  }) => {
    test.setTimeout(90_000);
    const account = await createAccount(request, 'spaces');
    await openSignedIn(page, account, '/entities');
    await expect(page.getByRole('heading', { level: 1, name: 'Entity Management' })).toBeVisible();
    await expect(switcher(page, 'Default')).toBeVisible();

    // ── a new space, from the switcher ──────────────────────────────────────
    await openSwitcher(page, 'Default');
    await page.getByRole('button', { name: 'New space…' }).click();
    const create = page.getByRole('dialog', { name: 'New space' });
    await create.getByLabel('Name').fill('Project Alpha');
    await create.getByRole('button', { name: 'Create space' }).click();
    await expect(create).toBeHidden();
    await expect(page).toHaveURL(/\/entities\?space=project-alpha$/);
    await expect(switcher(page, 'Project Alpha')).toBeVisible();

    // ── an entity in it ─────────────────────────────────────────────────────
    await page.getByRole('button', { name: 'Create Entity' }).first().click();
    const form = page.getByRole('dialog', { name: 'Create Entity' });
    await form.getByLabel('Name').fill('Alpha Engine');
    await choose(page, form, 'Type', 'Custom Type...');
    await form.getByRole('textbox', { name: 'Custom type' }).fill('machine');
    await form.getByRole('button', { name: 'Create Entity' }).click();
    await expect(form).toBeHidden();
    await expect(page.getByRole('article', { name: 'Alpha Engine', exact: true })).toBeVisible();

    // The API agrees: it is in project-alpha, not in default.
    const inSpace = async (slug: string) => {
      const response = await request.get('/api/entities', {
        headers: { Authorization: `Bearer ${account.token}`, 'X-Engram-Space': slug },
      });
      expect(response.ok()).toBe(true);
      return ((await response.json()) as { entities: { name: string }[] }).entities.map(
        (entity) => entity.name,
      );
    };
    expect(await inSpace('project-alpha')).toEqual(['Alpha Engine']);
    expect(await inSpace('default')).toEqual([]);

    // ── moving between screens keeps the space ──────────────────────────────
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Relations' })
      .click();
    await expect(page).toHaveURL(/\/relations\?space=project-alpha$/);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Entities' })
      .click();
    await expect(page).toHaveURL(/\/entities\?space=project-alpha$/);
    await saveScreenshot(page, 'spaces-entities-desktop');

    // ── the default space does not have it ──────────────────────────────────
    const list = await openSwitcher(page, 'Project Alpha');
    await page.getByRole('combobox', { name: 'Filter spaces' }).fill('def');
    await list.getByRole('option', { name: /^Default/ }).click();
    await expect(page).toHaveURL(/\/entities$/);
    await expect(switcher(page, 'Default')).toBeVisible();
    await expect(page.getByText('No entities found')).toBeVisible();
    await expect(page.getByRole('article', { name: 'Alpha Engine', exact: true })).toHaveCount(0);

    // ── back in the space, a reload stays there ─────────────────────────────
    await openSwitcher(page, 'Default');
    await page.getByRole('option', { name: /^Project Alpha/ }).click();
    await expect(page).toHaveURL(/\/entities\?space=project-alpha$/);
    await page.reload();
    await expect(switcher(page, 'Project Alpha')).toBeVisible();
    await expect(page.getByRole('article', { name: 'Alpha Engine', exact: true })).toBeVisible();

    // ── the dashboard offers All spaces ─────────────────────────────────────
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Dashboard' })
      .click();
    await expect(page).toHaveURL(/\/dashboard\?space=project-alpha$/);
    await openSwitcher(page, 'Project Alpha');
    await page.getByRole('option', { name: 'All spaces' }).click();
    await expect(switcher(page, 'All spaces')).toBeVisible();
    await saveScreenshot(page, 'spaces-dashboard-all-desktop');

    // ── a read-only key for this one space ──────────────────────────────────
    await page.goto('/api-keys?space=project-alpha');
    await page
      .getByRole('button', { name: /^Create (API Key|Your First API Key)$/ })
      .first()
      .click();
    const keyForm = page.getByRole('dialog', { name: 'Create API Key' });
    await keyForm.getByLabel('Key Name').fill('Alpha reader');
    await keyForm.getByRole('radio', { name: 'Chosen spaces' }).click();
    await keyForm.getByRole('searchbox', { name: 'Search spaces' }).fill('project');
    await keyForm.getByRole('checkbox', { name: /project-alpha/ }).check();
    await keyForm.getByRole('radio', { name: 'Read only' }).click();
    await saveScreenshot(page, 'spaces-key-scope-desktop');
    await keyForm.getByRole('button', { name: 'Create API Key' }).click();
    await expect(keyForm).toBeHidden();
    const key = (await page.getByTestId('new-api-key').textContent()) ?? '';
    const card = page.getByRole('article', { name: 'Alpha reader' });
    await expect(card).toContainText('Access: project-alpha · read only');

    // The key reads its space, and nothing else.
    const withKey = (slug: string) =>
      request.get('/api/entities', {
        headers: { Authorization: `Bearer ${key}`, 'X-Engram-Space': slug },
      });
    expect((await withKey('project-alpha')).status()).toBe(200);
    expect((await withKey('default')).ok()).toBe(false);

    // ── Settings → Spaces ───────────────────────────────────────────────────
    await page.goto('/settings/spaces');
    const spaces = page.getByRole('region', { name: 'Spaces' });
    await expect(spaces.getByText('Project Alpha')).toBeVisible();
    await expect(spaces.getByText(/project-alpha · 1 entity/)).toBeVisible();
    await saveScreenshot(page, 'spaces-settings-desktop');

    // ── at 375 px ───────────────────────────────────────────────────────────
    await page.setViewportSize({ width: 375, height: 812 });
    await saveScreenshot(page, 'spaces-settings-mobile');
    await page.goto('/entities?space=project-alpha');
    await expect(switcher(page, 'Project Alpha')).toBeVisible();
    await openSwitcher(page, 'Project Alpha');
    await expect(page.getByRole('button', { name: 'New space…' })).toBeVisible();
    // The popover fades in: capture it once it has.
    await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished)));
    await saveScreenshot(page, 'spaces-switcher-mobile');
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
  });
});
