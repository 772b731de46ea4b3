import { expect, test, type Locator, type Page } from '@playwright/test';
import {
  createAccount,
  openSignedIn,
  PASSWORD,
  saveScreenshot,
  uniqueEmail,
  type Account,
} from './support';

/*
 * Issue 58, the web part of a new person's first hour: the key just created in
 * the Connect an agent snippets, the header's search field, dialogs that keep
 * typed input from Escape and Back, addresses that wrap at separators on a
 * phone, the email after sign-up, the key limit said before the form, and
 * long observations folded.
 */

const WIDTHS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'mobile', width: 375, height: 812 },
] as const;

const PLACEHOLDER = '<your-api-key>';

async function expectNoSidewaysScroll(page: Page) {
  const widths = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    viewport: document.documentElement.clientWidth,
  }));
  expect(widths.page).toBeLessThanOrEqual(widths.viewport);
}

/**
 * The characters after which the text of `element` wraps onto a new line: a
 * line starts where a character's box sits lower than the one before.
 */
async function wrapsAfter(element: Locator): Promise<string[]> {
  return element.evaluate((root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const chars: { char: string; top: number }[] = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (let i = 0; i < text.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (rect) chars.push({ char: text[i]!, top: rect.top });
      }
    }
    const breaks: string[] = [];
    for (let i = 1; i < chars.length; i++) {
      if (chars[i]!.top > chars[i - 1]!.top + 2)
        breaks.push(`${chars[i - 1]!.char}|${chars[i]!.char}`);
    }
    return breaks;
  });
}

/** Goes to a screen through the app's own navigation (an in-app history entry, as a person would). */
async function navigateTo(page: Page, label: string, mobile: boolean) {
  if (mobile) {
    await page.getByRole('button', { name: 'Open navigation menu' }).click();
    await page
      .getByRole('navigation', { name: 'Mobile' })
      .getByRole('link', { name: label })
      .click();
  } else {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label }).click();
  }
}

async function createEntity(page: Page, account: Account, data: object) {
  const response = await page.request.post('/api/entities', {
    headers: { Authorization: `Bearer ${account.token}` },
    data,
  });
  expect(response.status()).toBe(201);
}

for (const viewport of WIDTHS) {
  const mobile = viewport.name === 'mobile';

  test.describe(`First hour at ${viewport.width}px`, () => {
    test.use({
      viewport: { width: viewport.width, height: viewport.height },
      permissions: ['clipboard-read', 'clipboard-write'],
    });

    test('sign-up leaves the email filled in on the sign-in page', async ({ page }) => {
      const email = uniqueEmail('first-hour');
      await page.goto('/signup');
      await page.getByLabel('First Name').fill('Grace');
      await page.getByLabel('Last Name').fill('Hopper');
      await page.getByLabel('Email Address').fill(email);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByLabel('Confirm Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Create Account' }).click();
      await expect(
        page.getByText('Account created successfully! Redirecting to login...'),
      ).toBeVisible();
      await expect(page).toHaveURL('/login', { timeout: 5000 });
      await expect(page.getByLabel('Email Address')).toHaveValue(email);
      await expect(page.getByLabel('Password')).toBeFocused();
      await saveScreenshot(page, `first-hour-login-after-signup-${viewport.name}`);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign In' }).click();
      await expect(page).toHaveURL('/dashboard');
    });

    test('API Keys: the key limit before the form, Include my key, the MCP URL wraps at separators', async ({
      page,
      request,
    }) => {
      const account = await createAccount(request, `first-hour-keys-${viewport.name}`);
      await openSignedIn(page, account, '/api-keys');
      const panel = page.getByRole('region', { name: 'Connect an agent' });
      const include = panel.getByRole('checkbox', { name: 'Include my key' });
      const snippet = panel.getByTestId('agent-config');

      // No key made here yet: the toggle is there, off and disabled, with a hint.
      await expect(include).toBeDisabled();
      await expect(include).not.toBeChecked();
      await expect(panel).toContainText('Create a key on this page to put it in the snippet.');
      await expect(snippet).toContainText(PLACEHOLDER);

      // The MCP URL and the inline address wrap at separators, never mid-word.
      const url = panel.getByTestId('mcp-url');
      for (const breaks of [
        await wrapsAfter(url),
        await wrapsAfter(panel.locator('p code').first()),
      ]) {
        for (const pair of breaks) expect(pair).toMatch(/^\/\||\|[?&#]/);
      }
      await expectNoSidewaysScroll(page);

      await page.getByRole('button', { name: 'Create Your First API Key' }).click();
      const dialog = page.getByRole('dialog', { name: 'Create API Key' });
      await dialog.getByLabel('Key Name').fill('Claude Code');
      await dialog.getByRole('button', { name: 'Create API Key' }).click();
      await expect(dialog).toBeHidden();
      const key = (await page.getByTestId('new-api-key').textContent()) ?? '';
      expect(key).toMatch(/^eng_key_/);

      // Off by default; on, the snippet holds the key just created, and Copy copies it.
      await expect(include).toBeEnabled();
      await expect(include).not.toBeChecked();
      await expect(snippet).toContainText(PLACEHOLDER);
      await include.check();
      await expect(snippet).toContainText(`Authorization: Bearer ${key}`);
      await expect(snippet).not.toContainText(PLACEHOLDER);
      await panel.getByTestId('copy-agent-config').click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(key);
      // The key works as the snippet sends it.
      const withKey = await request.get('/api/entities', {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(withKey.status()).toBe(200);

      // The Free plan's one key is said before the form: Create is held back with a note.
      const create = page.getByRole('button', { name: 'Create API Key' });
      await expect(create).toBeDisabled();
      await expect(page.getByTestId('api-key-limit-note')).toContainText(
        'Your Free plan allows 1 API key. Delete a key or upgrade your plan to create another.',
      );
      await expectNoSidewaysScroll(page);
      await page.mouse.move(0, 0);
      await saveScreenshot(page, `first-hour-api-keys-${viewport.name}`);
      await panel.screenshot({
        path: `test-results/screenshots/first-hour-connect-panel-${viewport.name}.png`,
      });

      // Dismissing the banner takes the key out of the snippet.
      await page.getByRole('button', { name: 'Dismiss' }).click();
      await expect(include).toBeDisabled();
      await expect(snippet).toContainText(PLACEHOLDER);
    });

    test('the header search field opens Search with the question; / focuses it', async ({
      page,
      request,
    }) => {
      const account = await createAccount(request, `first-hour-search-${viewport.name}`);
      await createEntity(page, account, {
        name: 'Maya',
        type: 'person',
        observations: ['Maya works at Acme as a designer'],
      });
      await openSignedIn(page, account, '/dashboard');
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      // The spec's four navigation items are unchanged.
      if (!mobile) {
        await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link')).toHaveText([
          'Dashboard',
          'Entities',
          'Relations',
          'Graph View',
        ]);
      }

      if (mobile) {
        await page.getByRole('button', { name: 'Open navigation menu' }).click();
        const menu = page.getByRole('dialog');
        await expect(menu.getByRole('navigation', { name: 'Mobile' }).getByRole('link')).toHaveText(
          ['Dashboard', 'Entities', 'Relations', 'Graph View'],
        );
        const field = menu.getByRole('searchbox', { name: 'Search memory' });
        await field.fill('where does Maya work');
        await saveScreenshot(page, `first-hour-mobile-menu-search-${viewport.name}`);
        await field.press('Enter');
        await expect(menu).toBeHidden();
      } else {
        const field = page.getByRole('banner').getByRole('searchbox', { name: 'Search memory' });
        await page.locator('main').click({ position: { x: 5, y: 5 } });
        await page.keyboard.press('/');
        await expect(field).toBeFocused();
        await expect(field).toHaveValue('');
        await page.keyboard.type('where does Maya work');
        await saveScreenshot(page, `first-hour-header-search-${viewport.name}`);
        await page.keyboard.press('Enter');
      }
      await expect(page).toHaveURL(/\/search\?q=where\+does\+Maya\+work$/);
      await expect(page.getByRole('searchbox', { name: 'Ask a question' })).toHaveValue(
        'where does Maya work',
      );
      await expect(page.getByRole('list', { name: 'Results' })).toContainText('Maya works at Acme');

      if (!mobile) {
        // In a text field, / is a character, not the shortcut.
        const ask = page.getByRole('searchbox', { name: 'Ask a question' });
        await ask.fill('a');
        await ask.press('/');
        await expect(ask).toHaveValue('a/');
        await expect(ask).toBeFocused();
        // A second question from the header replaces the one on the Search screen.
        const field = page.getByRole('banner').getByRole('searchbox', { name: 'Search memory' });
        await field.fill('designer');
        await field.press('Enter');
        await expect(ask).toHaveValue('designer');
        await expect(page).toHaveURL(/\/search\?q=designer$/);
      }
      await expectNoSidewaysScroll(page);
      await saveScreenshot(page, `first-hour-search-results-${viewport.name}`);
    });

    test('dialogs: Escape asks before discarding typed input; Back closes the dialog', async ({
      page,
      request,
    }) => {
      const account = await createAccount(request, `first-hour-dialogs-${viewport.name}`);
      await openSignedIn(page, account, '/dashboard');
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await navigateTo(page, 'Entities', mobile);
      await expect(page).toHaveURL('/entities');

      const create = page.getByRole('dialog', { name: 'Create Entity' });
      const ask = page.getByRole('alertdialog', { name: 'Discard your changes?' });

      // Nothing typed: Escape closes at once.
      await page.getByRole('button', { name: 'Create Entity' }).first().click();
      await expect(create).toBeVisible();
      await page.keyboard.press('Escape');
      await expect(create).toBeHidden();
      await expect(ask).toBeHidden();

      // Typed: Escape asks; Keep editing keeps the text.
      await page.getByRole('button', { name: 'Create Entity' }).first().click();
      await create.getByLabel('Name').fill('Ada Lovelace');
      await page.keyboard.press('Escape');
      await expect(ask).toBeVisible();
      await expect(ask).toContainText('What you entered in this dialog will be lost.');
      await saveScreenshot(page, `first-hour-discard-question-${viewport.name}`);
      await ask.getByRole('button', { name: 'Keep editing' }).click();
      await expect(ask).toBeHidden();
      await expect(create.getByLabel('Name')).toHaveValue('Ada Lovelace');

      // Back with typed input asks too, and stays on the page; Discard closes.
      await page.goBack();
      await expect(ask).toBeVisible();
      await expect(page).toHaveURL('/entities');
      await ask.getByRole('button', { name: 'Discard' }).click();
      await expect(create).toBeHidden();
      await expect(page).toHaveURL('/entities');

      // Back with nothing typed closes the dialog and stays on the page.
      await page.getByRole('button', { name: 'Create Entity' }).first().click();
      await expect(create).toBeVisible();
      await page.goBack();
      await expect(create).toBeHidden();
      await expect(page).toHaveURL('/entities');
      await expect(
        page.getByRole('heading', { level: 1, name: 'Entity Management' }),
      ).toBeVisible();
      // With no dialog open, Back leaves the page as before.
      await page.goBack();
      await expect(page).toHaveURL('/dashboard');

      // The relation dialog: a picked end is input too.
      await navigateTo(page, 'Relations', mobile);
      await expect(page).toHaveURL('/relations');
      await page.getByRole('button', { name: 'Create Relation' }).first().click();
      const relation = page.getByRole('dialog', { name: 'Create New Relation' });
      await expect(relation).toBeVisible();
      await page.goBack();
      await expect(relation).toBeHidden();
      await expect(page).toHaveURL('/relations');
    });

    test('a long observation shows folded, with Show more and Show less', async ({
      page,
      request,
    }) => {
      const account = await createAccount(request, `first-hour-long-${viewport.name}`);
      const long = `${'The analytical engine weaves algebraic patterns. '.repeat(100)}END`;
      await createEntity(page, account, {
        name: 'Analytical Engine',
        type: 'technology',
        observations: [long, 'Designed by Charles Babbage'],
      });
      await openSignedIn(page, account, '/entities');
      await page
        .getByRole('article', { name: 'Analytical Engine' })
        .getByRole('button', { name: 'Actions for Analytical Engine' })
        .click();
      await page.getByRole('menuitem', { name: 'View Details' }).click();
      const view = page.getByRole('dialog', { name: 'Analytical Engine' });
      const observations = view.getByRole('region', { name: 'Observations' });
      const folded = observations.locator('p', { hasText: 'The analytical engine weaves' });
      const more = observations.getByRole('button', { name: 'Show more' });
      await expect(more).toBeVisible();
      // Only the long one folds.
      await expect(observations.getByRole('button', { name: /Show (more|less)/ })).toHaveCount(1);
      const foldedHeight = (await folded.boundingBox())?.height ?? 0;
      expect(foldedHeight).toBeLessThan(200);
      await saveScreenshot(page, `first-hour-long-observation-${viewport.name}`);
      await more.click();
      await expect(observations.getByRole('button', { name: 'Show less' })).toHaveAttribute(
        'aria-expanded',
        'true',
      );
      expect((await folded.boundingBox())?.height ?? 0).toBeGreaterThan(foldedHeight * 2);
      await observations.getByRole('button', { name: 'Show less' }).click();
      await expect(more).toBeVisible();
      await expectNoSidewaysScroll(page);
    });
  });
}
