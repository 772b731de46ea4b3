import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { choose, createAccount, openSignedIn, type Account } from './support';

/** Calls the REST API as `account`, failing the test on an error. */
function api(request: APIRequestContext, account: Account, origin = '') {
  return async <T = { id: string }>(method: string, path: string, data?: unknown): Promise<T> => {
    const response = await request.fetch(`${origin}${path}`, {
      method,
      data,
      headers: { Authorization: `Bearer ${account.token}` },
    });
    expect(response.ok(), `${method} ${path}: ${response.status()}`).toBe(true);
    return (await response.json()) as T;
  };
}

/** Opens the entity picker labelled `label`, searches `query` and picks `name`. */
async function pick(page: Page, dialog: Locator, label: string, query: string, name: string) {
  await dialog.getByRole('button', { name: label }).click();
  await page.getByRole('combobox', { name: /^Search (source|target) entities$/ }).fill(query);
  await page.getByRole('option', { name: new RegExp(`^${name}`) }).click();
  await expect(dialog.getByRole('button', { name: label })).toContainText(name);
}

function rows(page: Page) {
  return page
    .getByRole('table')
    .getByRole('row')
    .filter({ has: page.getByRole('cell') });
}

function row(page: Page, from: string, type: string, to: string) {
  return rows(page).filter({
    has: page.getByRole('button', { name: `Actions for ${from} ${type} ${to}`, exact: true }),
  });
}

async function rowAction(page: Page, from: string, type: string, to: string, action: string) {
  await page
    .getByRole('button', { name: `Actions for ${from} ${type} ${to}`, exact: true })
    .click();
  await page.getByRole('menuitem', { name: action }).click();
}

test.describe('Relation Management (/relations)', () => {
  test('create, edit, search, filter and delete relations, with every rule of the form', async ({
    page,
    request,
  }) => {
    test.setTimeout(90_000);
    const account = await createAccount(request, 'relations-crud');
    const call = api(request, account);
    const ada = await call('POST', '/api/entities', { name: 'Ada Lovelace', type: 'person' });
    const engram = await call('POST', '/api/entities', { name: 'Engram', type: 'product' });
    const babbage = await call('POST', '/api/entities', {
      name: 'Charles Babbage',
      type: 'person',
    });

    await openSignedIn(page, account, '/relations');
    await expect(
      page.getByRole('heading', { level: 1, name: 'Relation Management' }),
    ).toBeVisible();
    await expect(page.getByText('No relations found')).toBeVisible();
    await expect(page.getByText('Create your first relation to get started')).toBeVisible();

    // ── create, rule by rule ────────────────────────────────────────────────
    await page.getByRole('button', { name: 'Create Relation' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Create New Relation' });
    await expect(dialog.getByText('Create a new relationship between two entities.')).toBeVisible();
    const submit = dialog.getByRole('button', { name: 'Create Relation' });

    await submit.click();
    await expect(dialog.getByText('Source entity is required')).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Source Entity' })).toBeFocused();
    await pick(page, dialog, 'Source Entity', 'ada', 'Ada Lovelace');
    await submit.click();
    await expect(dialog.getByText('Target entity is required')).toBeVisible();

    // The entity picked as the source cannot be picked as the target.
    await dialog.getByRole('button', { name: 'Target Entity' }).click();
    const targetSearch = page.getByRole('combobox', { name: 'Search target entities' });
    await targetSearch.fill('Ada');
    await expect(page.getByRole('option')).toHaveText([/^Ada Lovelace/]);
    const adaOption = page.getByRole('option', { name: /^Ada Lovelace/ });
    await expect(adaOption).toHaveAttribute('aria-disabled', 'true');
    await adaOption.click({ force: true });
    await targetSearch.press('Enter');
    await expect(page.getByRole('listbox')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(dialog.getByRole('button', { name: 'Target Entity' })).toContainText(
      'Select an entity',
    );
    // The server keeps the same rule for every caller, with the same words.
    const same = await request.post('/api/relations', {
      headers: { Authorization: `Bearer ${account.token}` },
      data: { fromEntityId: ada.id, toEntityId: ada.id, type: 'uses' },
    });
    expect(same.status()).toBe(400);
    expect(await same.text()).toContain('Source and target entities cannot be the same');

    // Keyboard: arrows move through the results, Enter picks.
    await dialog.getByRole('button', { name: 'Target Entity' }).click();
    await targetSearch.fill('engr');
    await expect(page.getByRole('option')).toHaveText([/^Engram/]);
    await targetSearch.press('Enter');
    await expect(dialog.getByRole('button', { name: 'Target Entity' })).toContainText('Engram');

    await submit.click();
    await expect(dialog.getByText('Relation type is required')).toBeVisible();
    await choose(page, dialog, 'Relation Type', 'Custom Type...');
    await dialog.getByRole('textbox', { name: 'Custom relation type' }).fill('   ');
    await submit.click();
    await expect(dialog.getByText('Relation type is required')).toBeVisible();

    // The ten documented types (docs/product.md, Forms), then the free text.
    await dialog.getByRole('combobox', { name: 'Relation Type', exact: true }).click();
    await expect(page.getByRole('option')).toHaveText([
      /relates_to/,
      /depends_on/,
      /part_of/,
      /uses$/,
      /enables/,
      /based_on/,
      /implements/,
      /extends/,
      /contains/,
      /influences/,
      'Custom Type...',
    ]);
    await page.getByRole('option', { name: /^Uses/ }).click();
    await submit.click();
    await expect(page.getByText('Relation created successfully')).toBeVisible();
    await expect(dialog).toBeHidden();
    await expect(row(page, 'Ada Lovelace', 'uses', 'Engram')).toContainText('Uses');

    // A custom type, trimmed.
    await page.getByRole('button', { name: 'Create Relation' }).click();
    await pick(page, dialog, 'Source Entity', 'ada', 'Ada Lovelace');
    await pick(page, dialog, 'Target Entity', 'charles', 'Charles Babbage');
    await choose(page, dialog, 'Relation Type', 'Custom Type...');
    await dialog
      .getByRole('textbox', { name: 'Custom relation type' })
      .fill('  collaborated_with ');
    await submit.click();
    await expect(page.getByText('Relation created successfully').last()).toBeVisible();
    await expect(row(page, 'Ada Lovelace', 'collaborated_with', 'Charles Babbage')).toContainText(
      'Collaborated with',
    );

    // The same relation twice is refused by the server, at the type.
    await page.getByRole('button', { name: 'Create Relation' }).click();
    await pick(page, dialog, 'Source Entity', 'ada', 'Ada Lovelace');
    await pick(page, dialog, 'Target Entity', 'engram', 'Engram');
    await choose(page, dialog, 'Relation Type', /^Uses/);
    await submit.click();
    await expect(page.getByText('Failed to save relation')).toBeVisible();
    await expect(dialog.getByText('"Ada Lovelace" already uses "Engram"')).toBeVisible();
    // The picks are input: Escape asks before throwing them away.
    await page.keyboard.press('Escape');
    await page
      .getByRole('alertdialog', { name: 'Discard your changes?' })
      .getByRole('button', { name: 'Discard' })
      .click();
    await expect(dialog).toBeHidden();

    // Another writer (live): the table refreshes by itself.
    await call('POST', '/api/relations', {
      fromEntityId: babbage.id,
      toEntityId: engram.id,
      type: 'uses',
    });
    await expect(rows(page)).toHaveCount(3);
    await expect(page.getByText('3 relations', { exact: true })).toBeVisible();

    // ── type filter: counts, most used first, labelled ──────────────────────
    await page.getByRole('combobox', { name: 'Relation type' }).click();
    await expect(page.getByRole('option')).toHaveText([
      'All Types',
      'Uses (2)',
      'Collaborated with (1)',
    ]);
    await page.getByRole('option', { name: 'Collaborated with (1)' }).click();
    await expect(rows(page)).toHaveCount(1);
    await expect(page).toHaveURL(/type=collaborated_with/);
    await choose(page, page.locator('body'), 'Relation type', 'All Types');
    await expect(rows(page)).toHaveCount(3);
    // The filter's own search asks the server for the types starting with the text.
    await page.getByRole('combobox', { name: 'Relation type' }).click();
    await page.getByRole('combobox', { name: 'Search relation types' }).fill('COL');
    await expect(page.getByRole('option')).toHaveText(['All Types', 'Collaborated with (1)']);
    await page.keyboard.press('Escape');
    await expect(page.getByRole('listbox')).toBeHidden();

    // ── search: either end's name or the type, any case ─────────────────────
    const search = page.getByRole('searchbox', { name: 'Search relations' });
    await search.fill('BABBAGE');
    await expect(rows(page)).toHaveCount(2);
    await search.fill('uses');
    await expect(rows(page)).toHaveCount(2);
    await search.fill('engram');
    await expect(rows(page)).toHaveCount(2);
    await expect(page).toHaveURL(/q=engram/);
    await search.fill('nothing like this');
    await expect(page.getByText('No relations found')).toBeVisible();
    await search.fill('');
    await expect(rows(page)).toHaveCount(3);

    // ── edit: the type only ─────────────────────────────────────────────────
    await rowAction(page, 'Ada Lovelace', 'uses', 'Engram', 'Edit Relation');
    const edit = page.getByRole('dialog', { name: 'Edit Relation' });
    await expect(
      edit.getByText('Update the relation type. Entity connections cannot be modified.'),
    ).toBeVisible();
    await expect(edit.getByRole('button', { name: 'Source Entity' })).toBeDisabled();
    await expect(edit.getByRole('button', { name: 'Target Entity' })).toBeDisabled();
    await expect(edit.getByRole('button', { name: 'Source Entity' })).toContainText('Ada Lovelace');
    await choose(page, edit, 'Relation Type', /^Depends on/);
    await edit.getByRole('button', { name: 'Update Relation' }).click();
    await expect(page.getByText('Relation updated successfully')).toBeVisible();
    await expect(row(page, 'Ada Lovelace', 'depends_on', 'Engram')).toContainText('Depends on');

    // ── delete, after the confirmation ──────────────────────────────────────
    await rowAction(page, 'Ada Lovelace', 'depends_on', 'Engram', 'Delete Relation');
    const confirm = page.getByRole('dialog', { name: 'Delete Relation' });
    await expect(confirm.getByText('Are you sure you want to delete this relation?')).toBeVisible();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(rows(page)).toHaveCount(3);
    await rowAction(page, 'Ada Lovelace', 'depends_on', 'Engram', 'Delete Relation');
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect(page.getByText('Relation deleted successfully')).toBeVisible();
    await expect(rows(page)).toHaveCount(2);
    const left = await call<{ relations: { type: string }[] }>('GET', '/api/relations');
    expect(left.relations.map((relation) => relation.type).sort()).toEqual([
      'collaborated_with',
      'uses',
    ]);
  });
});

// ── pictures ────────────────────────────────────────────────────────────────

const WIDTHS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'mobile', width: 375, height: 812 },
] as const;

for (const viewport of WIDTHS) {
  test.describe(`Relation Management screenshots at ${viewport.width}px`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });
    test.setTimeout(120_000);

    test('every state of the screen', async ({ page, request }) => {
      // Animations are run to their end, so menus and dialogs show as they settle.
      const shot = async (name: string) => {
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({
          path: `test-results/screenshots/relations-${name}-${viewport.name}.png`,
          fullPage: true,
          animations: 'disabled',
        });
      };
      const viewportShot = (name: string) =>
        page.screenshot({
          path: `test-results/screenshots/relations-${name}-${viewport.name}.png`,
          animations: 'disabled',
        });

      const account = await createAccount(request, `relations-shots-${viewport.name}`);
      const call = api(request, account);
      const ids: Record<string, string> = {};
      for (const [name, type] of [
        ['Ada Lovelace', 'person'],
        ['Charles Babbage', 'person'],
        ['Analytical Engine', 'product'],
        ['Engram', 'technology'],
        ['Knowledge graph', 'concept'],
        ['Acme Corporation International', 'company'],
      ] as const) {
        ids[name] = (await call('POST', '/api/entities', { name, type })).id;
      }

      await openSignedIn(page, account, '/relations');
      await expect(page.getByText('No relations found')).toBeVisible();
      await shot('empty');

      await page.getByRole('button', { name: 'Create Relation' }).first().click();
      const dialog = page.getByRole('dialog', { name: 'Create New Relation' });
      await dialog.getByRole('button', { name: 'Create Relation' }).click();
      await expect(dialog.getByText('Source entity is required')).toBeVisible();
      await viewportShot('create-error');
      await pick(page, dialog, 'Source Entity', 'ada', 'Ada Lovelace');
      await dialog.getByRole('button', { name: 'Target Entity' }).click();
      await expect(page.getByRole('option')).toHaveCount(6);
      await viewportShot('picker');
      await page.keyboard.press('Escape');
      await pick(page, dialog, 'Target Entity', 'engine', 'Analytical Engine');
      await dialog.getByRole('combobox', { name: 'Relation Type', exact: true }).click();
      await viewportShot('type-options');
      await page.getByRole('option', { name: /^Based on/ }).click();
      await viewportShot('create-filled');
      await dialog.getByRole('button', { name: 'Create Relation' }).click();
      await expect(dialog).toBeHidden();

      const links: [string, string, string][] = [
        ['Charles Babbage', 'implements', 'Analytical Engine'],
        ['Ada Lovelace', 'collaborated_with', 'Charles Babbage'],
        ['Engram', 'uses', 'Knowledge graph'],
        ['Acme Corporation International', 'uses', 'Engram'],
        ['Engram', 'part_of', 'Acme Corporation International'],
        ['Knowledge graph', 'influences', 'Ada Lovelace'],
      ];
      for (const [from, type, to] of links) {
        await call('POST', '/api/relations', {
          fromEntityId: ids[from],
          toEntityId: ids[to],
          type,
        });
      }
      await expect(page.getByText('7 relations', { exact: true })).toBeVisible();
      // A fresh load: no toasts or live notices over the table.
      await page.reload();
      await expect(rows(page)).toHaveCount(7);
      await page.mouse.move(0, 0);
      await shot('table');
      await page.emulateMedia({ colorScheme: 'dark' });
      await shot('table-dark');
      await page.emulateMedia({ colorScheme: 'light' });

      await page.getByRole('button', { name: 'Actions for Engram uses Knowledge graph' }).click();
      await expect(page.getByRole('menu')).toBeVisible();
      await viewportShot('row-menu');
      await page.getByRole('menuitem', { name: 'Edit Relation' }).click();
      await expect(page.getByRole('dialog', { name: 'Edit Relation' })).toBeVisible();
      await viewportShot('edit-dialog');
      await page.keyboard.press('Escape');

      await rowAction(page, 'Engram', 'uses', 'Knowledge graph', 'Delete Relation');
      await expect(page.getByRole('dialog', { name: 'Delete Relation' })).toBeVisible();
      await viewportShot('delete-dialog');
      await page.keyboard.press('Escape');

      await page.getByRole('combobox', { name: 'Relation type' }).click();
      await viewportShot('type-filter');
      await page.getByRole('option', { name: 'Uses (2)' }).click();
      await expect(rows(page)).toHaveCount(2);
      await shot('filtered');
      await choose(page, page.locator('body'), 'Relation type', 'All Types');
      await page.getByRole('searchbox', { name: 'Search relations' }).fill('ada');
      await expect(rows(page)).toHaveCount(3);
      await shot('searched');

      await page.route('**/api/relations?*', (route) =>
        route.fulfill({ status: 500, json: { error: 'Internal error', code: 'INTERNAL_ERROR' } }),
      );
      await page.reload();
      await expect(page.getByText('Failed to load relations').first()).toBeVisible({
        timeout: 15_000,
      });
      await shot('load-error');
      await page.unrouteAll();
    });
  });
}
