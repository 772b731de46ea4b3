import { expect, test, type Page } from '@playwright/test';
import { createAccount, openSignedIn, storedToken } from './support';

/** Ends the page's session on the server behind the app's back. */
async function revokeSession(page: Page) {
  const token = await storedToken(page);
  const response = await page.request.post('/auth/logout', {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(response.ok()).toBe(true);
}

test.describe('Session', () => {
  test('a revoked session sends the next protected visit to /login', async ({ page, request }) => {
    const account = await createAccount(request, 'revoked');
    await openSignedIn(page, account);
    await expect(page.getByRole('heading', { name: 'Knowledge Graph Dashboard' })).toBeVisible();
    await revokeSession(page);
    await page.goto('/entities');
    await expect(page).toHaveURL('/login');
    expect(await storedToken(page)).toBeNull();
  });

  test('a 401 on any call clears the token and goes to /login', async ({ page, request }) => {
    const account = await createAccount(request, 'expired');
    await openSignedIn(page, account, '/settings');
    await page.getByLabel('First Name').fill('Augusta');
    await revokeSession(page);
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await expect(page).toHaveURL('/login');
    expect(await storedToken(page)).toBeNull();
  });

  test('a stale token on a public page is dropped quietly', async ({ page, request }) => {
    const account = await createAccount(request, 'stale');
    await openSignedIn(page, account, '/');
    await revokeSession(page);
    await page.reload();
    await expect(page).toHaveURL('/');
    await expect(page.getByRole('banner').getByRole('link', { name: 'Sign In' })).toBeVisible();
    expect(await storedToken(page)).toBeNull();
  });
});
