import { expect, test } from '@playwright/test';
import { createAccount, openSignedIn, saveScreenshot } from './support';

/**
 * One picture of every screen at desktop and phone width, for people to look
 * at (test-results/screenshots/). Nothing is compared automatically here.
 */
const WIDTHS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'mobile', width: 375, height: 812 },
] as const;

const PUBLIC_SCREENS = [
  ['landing', '/', 'Persistent Memory for AI Agents'],
  ['pricing', '/pricing', 'Simple pricing that grows with your agents'],
  ['login', '/login', 'Welcome back'],
  ['signup', '/signup', 'Create your account'],
  ['signup-paid-plan', '/signup?plan=pro&billing=annual', 'Create your account'],
] as const;

const SIGNED_IN_SCREENS = [
  ['dashboard', '/dashboard', 'Knowledge Graph Dashboard'],
  ['entities', '/entities', 'Entity Management'],
  ['entity-detail', '/entities/example-id', 'Entity Details'],
  ['relations', '/relations', 'Relation Management'],
  // Empty here (duplicates.spec.ts shoots a pair, the merge's question and its notice).
  ['duplicates', '/duplicates', 'Duplicates'],
  ['search', '/search', 'Search'],
  ['graph', '/graph', 'Knowledge Graph Visualization'],
  ['billing', '/billing', 'Billing & Subscription'],
  ['api-keys', '/api-keys', 'API Keys'],
  ['settings', '/settings', 'Settings'],
  // A Free account: the quiet note (webhooks.spec.ts shoots the screen with an endpoint and its log).
  ['settings-webhooks', '/settings/webhooks', 'Settings'],
  // One person on Free (members.spec.ts shoots the screen with a colleague, the switcher and an invitation).
  ['settings-members', '/settings/members', 'Settings'],
] as const;

for (const viewport of WIDTHS) {
  test.describe(`screens at ${viewport.width}px`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });
    // Many pages per test: one browser context, one account.
    test.setTimeout(120_000);

    test('public screens', async ({ page }) => {
      for (const [name, path, heading] of PUBLIC_SCREENS) {
        await page.goto(path);
        await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
        await saveScreenshot(page, `${name}-${viewport.name}`);
      }
      await page.goto('/pricing');
      await page.getByRole('radio', { name: /Annual/ }).click();
      await saveScreenshot(page, `pricing-annual-${viewport.name}`);

      await page.goto('/signup');
      await page.getByLabel('First Name').fill('Ada');
      await page.getByLabel('Last Name').fill('Lovelace');
      await page.getByLabel('Email Address').fill('ada@');
      await page.getByLabel('Password', { exact: true }).fill('Engines');
      await page.getByLabel('Confirm Password').fill('Engines');
      await page.getByRole('button', { name: 'Create Account' }).click();
      await expect(page.getByText('Please enter a valid email address')).toBeVisible();
      await saveScreenshot(page, `signup-error-${viewport.name}`);
    });

    test('signed-in screens', async ({ page, request }) => {
      const account = await createAccount(request, `shots-${viewport.name}`);
      await openSignedIn(page, account);
      for (const [name, path, heading] of SIGNED_IN_SCREENS) {
        await page.goto(path);
        await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
        await saveScreenshot(page, `${name}-${viewport.name}`);
      }
      await page.goto('/dashboard');
      if (viewport.name === 'mobile') {
        await page.getByRole('button', { name: 'Open navigation menu' }).click();
        await expect(page.getByRole('dialog')).toBeVisible();
        await page.screenshot({ path: 'test-results/screenshots/mobile-nav-mobile.png' });
        await page.keyboard.press('Escape');
        await expect(page.getByRole('dialog')).toHaveCount(0);
      }
      await page.getByRole('button', { name: /Account menu/ }).click();
      await expect(page.getByRole('menu')).toBeVisible();
      await page.screenshot({ path: `test-results/screenshots/user-menu-${viewport.name}.png` });
    });
  });
}
