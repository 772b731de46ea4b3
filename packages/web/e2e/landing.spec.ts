import { expect, test } from '@playwright/test';
import { createAccount, openSignedIn } from './support';

test.describe('Landing page', () => {
  test('shows every section and its buttons lead where they should', async ({ page }) => {
    await page.goto('/');
    await expect(
      page.getByRole('heading', { level: 1, name: 'Persistent Memory for AI Agents' }),
    ).toBeVisible();
    await expect(page.locator('#features li')).toHaveCount(6);
    await expect(page.getByRole('heading', { name: 'Memory in three steps' })).toBeVisible();
    await expect(page.locator('section[aria-labelledby="how-it-works-title"] li')).toHaveCount(3);
    await expect(page.getByRole('region', { name: 'What customers say' })).toContainText(
      'Priya Raman',
    );
    await expect(
      page.getByRole('heading', { name: 'Give your agents a memory that lasts' }),
    ).toBeVisible();
    await expect(page.getByRole('contentinfo')).toBeVisible();

    const docs = page.getByRole('link', { name: 'View Documentation' });
    await expect(docs).toHaveAttribute('href', '/docs');

    await page.getByRole('button', { name: 'Learn More' }).click();
    await expect(
      page.getByRole('heading', { name: 'Everything an agent needs to remember' }),
    ).toBeInViewport();

    await page.getByRole('link', { name: 'Get Started Free' }).click();
    await expect(page).toHaveURL('/pricing');

    await page.goto('/');
    await page.getByRole('banner').getByRole('link', { name: 'Sign In' }).click();
    await expect(page).toHaveURL('/login');
  });

  test('View Documentation opens the API reference', async ({ page }) => {
    await page.goto('/');
    await page.getByRole('link', { name: 'View Documentation' }).click();
    await expect(page).toHaveURL(/\/docs/);
    await expect(page.locator('body')).not.toContainText('Persistent Memory for AI Agents');
  });

  test("shows 'Dashboard' instead of 'Sign In' when signed in", async ({ page, request }) => {
    const account = await createAccount(request, 'landing');
    await openSignedIn(page, account, '/');
    const header = page.getByRole('banner');
    await expect(header.getByRole('link', { name: 'Dashboard' })).toBeVisible();
    await expect(header.getByRole('link', { name: 'Sign In' })).toHaveCount(0);
    await header.getByRole('link', { name: 'Dashboard' }).click();
    await expect(page).toHaveURL('/dashboard');
  });
});
