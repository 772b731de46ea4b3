import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { createAccount, openSignedIn, saveScreenshot, type Account } from './support';

const FREE_PLAN_LIMIT =
  'API key limit reached: the Free plan allows 1 API key. Delete a key or upgrade your plan to create more.';

/** The first 6 and last 4 characters around an ellipsis (docs/product.md, Forms). */
const masked = (key: string) => `${key.slice(0, 6)}…${key.slice(-4)}`;

function entitiesWith(request: APIRequestContext, key: string) {
  return request.get('/api/entities', { headers: { Authorization: `Bearer ${key}` } });
}

/** Creates a key through the dialog and returns the full key from the banner. */
async function createKeyInUi(page: Page, name: string): Promise<string> {
  await page
    .getByRole('button', { name: /^Create (API Key|Your First API Key)$/ })
    .first()
    .click();
  const dialog = page.getByRole('dialog', { name: 'Create API Key' });
  await dialog.getByLabel('Key Name').fill(name);
  await dialog.getByRole('button', { name: 'Create API Key' }).click();
  await expect(dialog).toBeHidden();
  const key = await page.getByTestId('new-api-key').textContent();
  expect(key).toMatch(/^eng_key_/);
  return key ?? '';
}

async function createKeyByApi(
  request: APIRequestContext,
  account: Account,
  data: { name: string; expiresInDays?: number },
): Promise<string> {
  const response = await request.post('/api/keys', {
    headers: { Authorization: `Bearer ${account.token}` },
    data: { permissions: [], ...data },
  });
  expect(response.status()).toBe(201);
  return ((await response.json()) as { apiKey: string }).apiKey;
}

test.describe('API Keys', () => {
  test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

  test('creates a key, shows it once, copies, reveals it, and the key works', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'keys-create');
    await openSignedIn(page, account, '/api-keys');
    await expect(page.getByRole('heading', { level: 1, name: 'API Keys' })).toBeVisible();
    await expect(page.getByText('No API keys yet')).toBeVisible();

    await page.getByRole('button', { name: 'Create Your First API Key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create API Key' });
    const create = dialog.getByRole('button', { name: 'Create API Key' });
    await expect(create).toBeDisabled();
    await dialog.getByLabel('Key Name').fill('   ');
    await expect(create).toBeDisabled();
    await dialog.getByLabel('Key Name').fill('CI agent');
    await create.click();

    const banner = page.getByRole('region', { name: 'API key created' });
    await expect(banner).toBeVisible();
    await expect(
      banner.getByText("Save this key now - you won't be able to see it again!"),
    ).toBeVisible();
    const key = (await page.getByTestId('new-api-key').textContent()) ?? '';
    expect(key).toMatch(/^eng_key_/);

    await banner.getByRole('button', { name: 'Copy' }).click();
    await expect(banner.getByRole('button', { name: 'Copied' })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

    const card = page.getByRole('article', { name: 'CI agent' });
    await expect(card.getByTestId('key-value')).toHaveText(masked(key));
    await expect(card.getByText('Never', { exact: true })).toBeVisible();
    await expect(card.getByText('Never expires')).toBeVisible();
    await expect(card.getByText('by Ada Lovelace')).toBeVisible();

    await banner.getByRole('button', { name: 'Dismiss' }).click();
    await expect(banner).toBeHidden();
    await expect(page.getByText(key, { exact: true })).toHaveCount(0);

    await card.getByRole('button', { name: 'Show key' }).click();
    await expect(card.getByTestId('key-value')).toHaveText(key);
    await card.getByRole('button', { name: 'Hide key' }).click();
    await expect(card.getByTestId('key-value')).toHaveText(masked(key));

    // The key works as a bearer credential, and its use shows on the card.
    expect((await entitiesWith(page.request, key)).status()).toBe(200);
    const kept = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
    expect(kept).not.toContain(key);
    await page.reload();
    await expect(card.getByText('Total Requests')).toBeVisible();
    await expect(card.locator('dd').first()).toHaveText('1');
    await expect(card.getByText('Never', { exact: true })).toHaveCount(0);
    // After a reload this session no longer knows the full key: masked only.
    await expect(card.getByTestId('key-value')).toHaveText(masked(key));
    await expect(card.getByRole('button', { name: 'Show key' })).toHaveCount(0);
  });

  test('rolls a key: a new banner, and the old key keeps working for two weeks', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'keys-roll');
    await openSignedIn(page, account, '/api-keys');
    const oldKey = await createKeyInUi(page, 'Deploy bot');
    await page.getByRole('button', { name: 'Dismiss' }).click();

    await page
      .getByRole('article', { name: 'Deploy bot' })
      .getByRole('button', { name: 'Roll' })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Roll API Key' });
    const consequences = dialog.getByRole('list', { name: 'What rolling does' });
    await expect(consequences.getByText(/keeps working for 2 weeks/)).toBeVisible();
    await expect(
      consequences.getByText(
        'Only one old key keeps working at a time: if you roll the new key again, the current key stops working at once.',
      ),
    ).toBeVisible();
    await expect(
      consequences.getByText(
        'If the current key replaced an older key that still works, that older key stops working now.',
      ),
    ).toBeVisible();
    await dialog.getByRole('button', { name: 'Roll Key' }).click();
    await expect(dialog).toBeHidden();

    const banner = page.getByRole('region', { name: 'API key rolled' });
    await expect(banner).toBeVisible();
    await expect(
      banner.getByText("Save this key now - you won't be able to see it again!"),
    ).toBeVisible();
    const newKey = (await page.getByTestId('new-api-key').textContent()) ?? '';
    expect(newKey).toMatch(/^eng_key_/);
    expect(newKey).not.toBe(oldKey);

    const cards = page.getByRole('article', { name: 'Deploy bot' });
    await expect(cards).toHaveCount(2);
    // Newest first: the successor never expires, the old key now has an end date.
    await expect(cards.nth(0).getByTestId('key-value')).toHaveText(masked(newKey));
    await expect(cards.nth(0).getByText('Never expires')).toBeVisible();
    await expect(cards.nth(1).getByTestId('key-value')).toHaveText(masked(oldKey));
    await expect(cards.nth(1).getByText('Never expires')).toHaveCount(0);
    const graceEnd = new Date(Date.now() + 14 * 86_400_000).toLocaleDateString('en-US', {
      month: 'short',
      day: 'numeric',
      year: 'numeric',
    });
    await expect(banner.getByText(new RegExp(`keeps working until ${graceEnd}`))).toBeVisible();
    // The old key is on its way out with two weeks left: amber, 'Expires Soon', and says so.
    await expect(cards.nth(1)).toHaveAttribute('data-state', 'expiring-soon');
    await expect(cards.nth(1).getByText('Expires Soon')).toBeVisible();
    await expect(cards.nth(1).getByTestId('roll-note')).toContainText(
      `by ${masked(newKey)} · works until ${graceEnd}`,
    );
    await expect(cards.nth(0)).toHaveAttribute('data-state', 'active');
    await expect(cards.nth(0).getByTestId('roll-note')).toContainText(`Replaces the key rolled on`);
    await expect(cards.nth(0).getByTestId('roll-note')).toContainText(`(${masked(oldKey)})`);

    expect((await entitiesWith(page.request, newKey)).status()).toBe(200);
    expect((await entitiesWith(page.request, oldKey)).status()).toBe(200);

    // A rolled key cannot be rolled again: the server's reason shows in the dialog.
    await cards.nth(1).getByRole('button', { name: 'Roll' }).click();
    await dialog.getByRole('button', { name: 'Roll Key' }).click();
    await expect(dialog.getByRole('alert')).toHaveText(
      'This key has already been rolled; roll its successor instead',
    );
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // Rolling the new key again ends the first key at once, as the dialog said.
    await cards.nth(0).getByRole('button', { name: 'Roll' }).click();
    await dialog.getByRole('button', { name: 'Roll Key' }).click();
    await expect(dialog).toBeHidden();
    await expect(cards).toHaveCount(3);
    const newestKey = (await page.getByTestId('new-api-key').textContent()) ?? '';
    expect(newestKey).not.toBe(newKey);
    expect((await entitiesWith(page.request, oldKey)).status()).toBe(401);
    expect((await entitiesWith(page.request, newKey)).status()).toBe(200);
    expect((await entitiesWith(page.request, newestKey)).status()).toBe(200);
    await expect(cards.nth(2)).toHaveAttribute('data-state', 'expired');
  });

  test("a key close to its expiry is amber with 'Expires Soon', and so is the key it rolls into", async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'keys-soon');
    await createKeyByApi(request, account, { name: 'Short-lived', expiresInDays: 3 });
    await openSignedIn(page, account, '/api-keys');
    const card = page.getByRole('article', { name: 'Short-lived' });
    await expect(card).toHaveAttribute('data-state', 'expiring-soon');
    await expect(card.getByText('Expires Soon')).toBeVisible();
    // No full key was seen in this session: nothing to reveal.
    await expect(card.getByRole('button', { name: 'Show key' })).toHaveCount(0);

    await card.getByRole('button', { name: 'Roll' }).click();
    await page
      .getByRole('dialog', { name: 'Roll API Key' })
      .getByRole('button', { name: 'Roll Key' })
      .click();
    await expect(page.getByRole('region', { name: 'API key rolled' })).toBeVisible();
    const cards = page.getByRole('article', { name: 'Short-lived' });
    await expect(cards).toHaveCount(2);
    for (const rolled of await cards.all()) {
      await expect(rolled.getByText('Expires Soon')).toBeVisible();
      await expect(rolled).toHaveAttribute('data-state', 'expiring-soon');
    }
  });

  test('deletes a key after the dialog; the key stops working at once', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'keys-delete');
    await openSignedIn(page, account, '/api-keys');
    const key = await createKeyInUi(page, 'Old laptop');
    expect((await entitiesWith(page.request, key)).status()).toBe(200);

    await page
      .getByRole('article', { name: 'Old laptop' })
      .getByRole('button', { name: 'Delete' })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Delete API Key' });
    const consequences = dialog.getByRole('list', { name: 'What deleting does' });
    await expect(consequences.getByText(/stop working immediately/)).toBeVisible();
    await expect(
      consequences.getByText(
        'If it replaced an older key that still works, that older key stops working too.',
      ),
    ).toBeVisible();
    await expect(consequences.getByText('This cannot be undone.')).toBeVisible();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('article', { name: 'Old laptop' })).toBeVisible();

    await page
      .getByRole('article', { name: 'Old laptop' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await dialog.getByRole('button', { name: 'Delete Key' }).click();
    await expect(page.getByText('API key deleted')).toBeVisible();
    await expect(page.getByText('No API keys yet')).toBeVisible();
    // The banner of the deleted key went with it.
    await expect(page.getByRole('region', { name: 'API key created' })).toHaveCount(0);
    expect((await entitiesWith(page.request, key)).status()).toBe(401);
  });

  test('the Free plan allows one key: Create says so before the form, the server refuses a second', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'keys-limit');
    await openSignedIn(page, account, '/api-keys');
    await createKeyInUi(page, 'First key');
    // Said before filling in the dialog: the button is held back with a note.
    const create = page.getByRole('button', { name: 'Create API Key' });
    await expect(create).toBeDisabled();
    await expect(page.getByTestId('api-key-limit-note')).toContainText(
      'Your Free plan allows 1 API key. Delete a key or upgrade your plan to create another.',
    );
    // The server's refusal stays what it was (another tab, an older screen).
    const second = await request.post('/api/keys', {
      headers: { Authorization: `Bearer ${account.token}` },
      data: { name: 'Second key', permissions: [] },
    });
    expect(second.status()).toBe(402);
    expect(((await second.json()) as { error: string }).error).toBe(FREE_PLAN_LIMIT);
    await page.reload();
    await expect(page.getByRole('article')).toHaveCount(1);
  });
});

test.describe('Personal API key (Settings)', () => {
  test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

  test('reveals, copies and regenerates the personal key', async ({ page, request }) => {
    const account = await createAccount(request, 'personal-key');
    await openSignedIn(page, account, '/settings');
    const card = page.getByRole('region', { name: 'Personal API Key' });
    const value = card.getByTestId('personal-api-key');

    await card.getByRole('button', { name: 'Show key' }).click();
    const oldKey = (await value.textContent()) ?? '';
    expect(oldKey).toMatch(/^eng_key_/);
    await card.getByRole('button', { name: 'Hide key' }).click();
    await expect(value).toHaveText(masked(oldKey));
    await card.getByRole('button', { name: 'Copy key' }).click();
    await expect(card.getByRole('button', { name: 'Copied' })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(oldKey);
    expect((await entitiesWith(page.request, oldKey)).status()).toBe(200);

    await card.getByRole('button', { name: 'Regenerate' }).click();
    const dialog = page.getByRole('dialog', { name: 'Regenerate personal API key?' });
    await expect(dialog.getByText(/stops working immediately/)).toBeVisible();
    await dialog.getByRole('button', { name: 'Regenerate Key' }).click();
    await expect(page.getByText('Personal API key regenerated')).toBeVisible();
    await expect(dialog).toBeHidden();
    await expect(value).not.toHaveText(masked(oldKey));

    await card.getByRole('button', { name: 'Show key' }).click();
    const newKey = (await value.textContent()) ?? '';
    expect(newKey).toMatch(/^eng_key_/);
    expect(newKey).not.toBe(oldKey);
    expect((await entitiesWith(page.request, oldKey)).status()).toBe(401);
    expect((await entitiesWith(page.request, newKey)).status()).toBe(200);

    // The session holds the new key; a fresh start reads the same one from the server.
    await page.reload();
    await card.getByRole('button', { name: 'Show key' }).click();
    await expect(value).toHaveText(newKey);
  });
});

/**
 * Pictures of the screen in each state, at desktop and phone width, for people
 * to look at (test-results/screenshots/api-keys-*). Nothing is compared.
 */
const WIDTHS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'mobile', width: 375, height: 812 },
] as const;

const DAY_MS = 86_400_000;

/** A list with one key of each state; only the screen's pictures use it. */
function sampleKeys() {
  const now = Date.now();
  const iso = (offsetDays: number) => new Date(now + offsetDays * DAY_MS).toISOString();
  const base = {
    permissions: [],
    createdBy: { id: '00000000-0000-4000-8000-0000000000aa', name: 'Ada Lovelace' },
  };
  return {
    apiKeys: [
      {
        ...base,
        id: '00000000-0000-4000-8000-000000000001',
        name: 'Production agent',
        keyPreview: 'eng_ke…Q7pA',
        expiresAt: null,
        isExpired: false,
        isExpiringSoon: false,
        lastUsedAt: iso(-0.1),
        createdAt: iso(-40),
        usage: { totalRequests: 18204, activeDays: 31 },
        replacedById: null,
        replacesId: null,
      },
      {
        ...base,
        id: '00000000-0000-4000-8000-000000000002',
        name: 'Staging agent (rolled)',
        keyPreview: 'eng_ke…m2Xc',
        expiresAt: iso(3),
        isExpired: false,
        isExpiringSoon: true,
        lastUsedAt: iso(-1),
        createdAt: iso(-90),
        usage: { totalRequests: 2310, activeDays: 12 },
        replacedById: null,
        replacesId: null,
      },
      {
        ...base,
        id: '00000000-0000-4000-8000-000000000003',
        name: 'Old laptop',
        keyPreview: 'eng_ke…9fLk',
        expiresAt: iso(-5),
        isExpired: true,
        isExpiringSoon: false,
        lastUsedAt: null,
        createdAt: iso(-120),
        usage: { totalRequests: 0, activeDays: 0 },
        replacedById: null,
        replacesId: null,
      },
    ],
  };
}

for (const viewport of WIDTHS) {
  test.describe(`API Keys screenshots at ${viewport.width}px`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });
    test.setTimeout(120_000);
    const shot = async (page: Page, name: string) => {
      // Full-page pictures are taken from the top, or the sticky header lands mid-page.
      await page.evaluate(() => window.scrollTo(0, 0));
      await saveScreenshot(page, `api-keys-${name}-${viewport.name}`);
    };
    const viewportShot = (page: Page, name: string) =>
      page.screenshot({ path: `test-results/screenshots/api-keys-${name}-${viewport.name}.png` });

    test("a rolled key's two cards: the old one expires soon and names its replacement", async ({
      page,
      request,
    }) => {
      const account = await createAccount(request, `keys-rolled-${viewport.name}`);
      const auth = { Authorization: `Bearer ${account.token}` };
      const created = await request.post('/api/keys', {
        headers: auth,
        data: { name: 'Production agent', permissions: [] },
      });
      const { id, keyPreview: oldPreview } = (await created.json()) as {
        id: string;
        keyPreview: string;
      };
      const rolled = await request.post(`/api/keys/${id}/roll`, { headers: auth });
      expect(rolled.status()).toBe(200);
      const { newKey, oldKey } = (await rolled.json()) as {
        newKey: { keyPreview: string; createdAt: string };
        oldKey: { expiresAt: string };
      };
      const day = (iso: string) =>
        new Date(iso).toLocaleDateString('en-US', {
          month: 'short',
          day: 'numeric',
          year: 'numeric',
        });

      await openSignedIn(page, account, '/api-keys');
      const cards = page.getByRole('article', { name: 'Production agent' });
      await expect(cards).toHaveCount(2);
      const [replacement, replaced] = [cards.nth(0), cards.nth(1)];
      await expect(replaced).toHaveAttribute('data-state', 'expiring-soon');
      await expect(replaced.getByText('Expires Soon')).toBeVisible();
      await expect(replaced.getByTestId('roll-note')).toHaveText(
        `Replaced on ${day(newKey.createdAt)} by ${newKey.keyPreview} · works until ${day(oldKey.expiresAt)}`,
      );
      await expect(replacement).toHaveAttribute('data-state', 'active');
      await expect(replacement.getByText('Expires Soon')).toHaveCount(0);
      await expect(replacement.getByTestId('roll-note')).toHaveText(
        `Replaces the key rolled on ${day(newKey.createdAt)} (${oldPreview})`,
      );
      const widths = await page.evaluate(() => ({
        page: document.documentElement.scrollWidth,
        viewport: document.documentElement.clientWidth,
      }));
      expect(widths.page).toBeLessThanOrEqual(widths.viewport);
      await shot(page, 'rolled-pair');
    });

    test('every state of the screen', async ({ page, request }) => {
      const account = await createAccount(request, `keys-shots-${viewport.name}`);
      await openSignedIn(page, account, '/api-keys');
      await expect(page.getByText('No API keys yet')).toBeVisible();
      await shot(page, 'empty');

      await page.getByRole('button', { name: 'Create Your First API Key' }).click();
      const create = page.getByRole('dialog', { name: 'Create API Key' });
      await create.getByLabel('Key Name').fill('Production agent');
      await viewportShot(page, 'create-dialog');
      await create.getByRole('button', { name: 'Create API Key' }).click();
      await expect(page.getByRole('region', { name: 'API key created' })).toBeVisible();
      await page.mouse.move(0, 0);
      await shot(page, 'banner');

      await page.getByRole('button', { name: 'Dismiss' }).click();
      const card = page.getByRole('article', { name: 'Production agent' });
      await card.getByRole('button', { name: 'Show key' }).click();
      await shot(page, 'revealed');

      await card.getByRole('button', { name: 'Roll' }).click();
      await expect(page.getByRole('dialog', { name: 'Roll API Key' })).toBeVisible();
      await viewportShot(page, 'roll-dialog');
      await page.getByRole('button', { name: 'Roll Key' }).click();
      await expect(page.getByRole('region', { name: 'API key rolled' })).toBeVisible();
      await page.mouse.move(0, 0);
      await shot(page, 'rolled');

      // The Free plan's one key is said before the form: Create is held back with a note.
      await expect(page.getByRole('button', { name: 'Create API Key' })).toBeDisabled();
      await expect(page.getByTestId('api-key-limit-note')).toBeVisible();
      await viewportShot(page, 'limit-note');

      await page.getByRole('article').first().getByRole('button', { name: 'Delete' }).click();
      await expect(page.getByRole('dialog', { name: 'Delete API Key' })).toBeVisible();
      await viewportShot(page, 'delete-dialog');
      await page.keyboard.press('Escape');

      // The expired and expiring-soon looks need keys of those ages: served to the page only.
      await page.route('**/api/keys', (route) =>
        route.request().method() === 'GET'
          ? route.fulfill({ json: sampleKeys() })
          : route.fallback(),
      );
      await page.reload();
      await expect(page.getByRole('article', { name: 'Old laptop' })).toBeVisible();
      await shot(page, 'states');

      await page.route('**/api/keys', (route) =>
        route.fulfill({ status: 500, json: { error: 'Internal error', code: 'INTERNAL_ERROR' } }),
      );
      await page.reload();
      await expect(page.getByRole('alert')).toBeVisible({ timeout: 15_000 });
      await shot(page, 'load-error');
      await page.unrouteAll();

      await page.goto('/settings');
      const personal = page.getByRole('region', { name: 'Personal API Key' });
      await personal.getByRole('button', { name: 'Show key' }).click();
      // Full-page pictures are taken from the top, or the sticky header lands mid-page.
      await page.evaluate(() => window.scrollTo(0, 0));
      await saveScreenshot(page, `settings-personal-key-${viewport.name}`);
      await personal.getByRole('button', { name: 'Regenerate' }).click();
      await expect(page.getByRole('dialog')).toBeVisible();
      await page.screenshot({
        path: `test-results/screenshots/settings-regenerate-dialog-${viewport.name}.png`,
      });
    });
  });
}
