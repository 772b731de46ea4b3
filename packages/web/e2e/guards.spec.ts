import { expect, test } from '@playwright/test';
import { createAccount, openSignedIn, PASSWORD } from './support';

test.describe('Route guards', () => {
  test('visitors: protected paths go to /login, unknown paths to /', async ({ page }) => {
    for (const path of [
      '/dashboard',
      '/entities',
      '/entities/some-id',
      '/relations',
      '/graph',
      '/billing',
      '/api-keys',
      '/settings',
    ]) {
      await page.goto(path);
      await expect(page, `visiting ${path}`).toHaveURL('/login');
    }
    await page.goto('/no/such/page');
    await expect(page).toHaveURL('/');
  });

  test('signed-in users: unknown paths, /login and /signup go to /dashboard', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'guards');
    await openSignedIn(page, account, '/no/such/page');
    await expect(page).toHaveURL('/dashboard');
    await page.goto('/login');
    await expect(page).toHaveURL('/dashboard');
    await page.goto('/signup?plan=pro&billing=monthly');
    await expect(page).toHaveURL('/dashboard');
  });

  test('after signing in, the visitor lands on the page first asked for', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'return');
    await page.goto('/graph');
    await expect(page).toHaveURL('/login');
    await page.getByLabel('Email Address').fill(account.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await expect(page).toHaveURL('/graph');
    await expect(
      page.getByRole('heading', { name: 'Knowledge Graph Visualization' }),
    ).toBeVisible();
  });

  test('entity detail has a Back button to /entities', async ({ page, request }) => {
    const account = await createAccount(request, 'detail');
    await openSignedIn(page, account, '/entities/abc');
    await page.getByRole('link', { name: 'Back' }).click();
    await expect(page).toHaveURL('/entities');
  });
});
