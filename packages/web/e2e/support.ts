import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { expect, type APIRequestContext, type Locator, type Page } from '@playwright/test';

export const PASSWORD = 'Engines1843';

export interface Account {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  token: string;
}

/** An address no other test uses, so specs can run in parallel on one server. */
export function uniqueEmail(label = 'user'): string {
  return `e2e-${label}-${randomUUID().slice(0, 8)}@example.com`;
}

/** Creates an account through the API, skipping the sign-up screen. */
export async function createAccount(request: APIRequestContext, label = 'user'): Promise<Account> {
  const details = {
    email: uniqueEmail(label),
    password: PASSWORD,
    firstName: 'Ada',
    lastName: 'Lovelace',
  };
  const response = await request.post('/auth/register', { data: details });
  if (response.status() !== 201) {
    throw new Error(`Registration failed: ${response.status()} ${await response.text()}`);
  }
  const body = (await response.json()) as { token: string };
  return { ...details, token: body.token };
}

/** Opens the app already signed in as `account` (token in localStorage, as after login). */
export async function openSignedIn(
  page: Page,
  account: Account,
  path = '/dashboard',
): Promise<void> {
  await page.goto('/pricing');
  await page.evaluate((token) => localStorage.setItem('auth_token', token), account.token);
  await page.goto(path);
}

export async function storedToken(page: Page): Promise<string | null> {
  return page.evaluate(() => localStorage.getItem('auth_token'));
}

const SCREENSHOT_DIR = 'test-results/screenshots';

/** Saves a full-page screenshot for people to look at (not compared). */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOT_DIR}/${name}.png`, fullPage: true });
}

/**
 * Picks `option` in the Radix select labelled `name`. Under load a click can
 * land while the list is still opening and be ignored (seen in CI: the list
 * stayed open), so the pick is repeated until the list has closed. While the
 * list is open Radix hides everything else from the accessibility tree (a
 * select in a dialog cannot be found by role then), so an open list is read
 * from the list itself.
 */
export async function choose(
  page: Page,
  scope: Page | Locator,
  name: string,
  option: string | RegExp,
): Promise<void> {
  const list = page.getByRole('listbox');
  await expect(async () => {
    if (!(await list.isVisible())) {
      await scope.getByRole('combobox', { name, exact: true }).click({ timeout: 5_000 });
    }
    await page.getByRole('option', { name: option }).click({ timeout: 5_000 });
    await expect(list).toBeHidden({ timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
}
