import { expect, test } from '@playwright/test';
import { createAccount, openSignedIn, storedToken } from './support';

test.describe('Signed-in shell', () => {
  test('navigates between the main screens', async ({ page, request }) => {
    const account = await createAccount(request, 'nav');
    await openSignedIn(page, account);
    await expect(page.getByRole('heading', { name: 'Knowledge Graph Dashboard' })).toBeVisible();
    await expect(
      page.getByText('Monitor your AI memory platform activity and insights'),
    ).toBeVisible();
    await expect(
      page.getByRole('status', { name: 'Realtime connection: Connected', exact: true }),
    ).toBeVisible();

    const nav = page.getByRole('navigation', { name: 'Main' });
    const screens: [string, string, string][] = [
      ['Entities', '/entities', 'Entity Management'],
      ['Relations', '/relations', 'Relation Management'],
      ['Graph View', '/graph', 'Knowledge Graph Visualization'],
      ['Dashboard', '/dashboard', 'Knowledge Graph Dashboard'],
    ];
    for (const [link, path, heading] of screens) {
      await nav.getByRole('link', { name: link }).click();
      await expect(page).toHaveURL(path);
      await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
    }
  });

  test('the user menu shows the email and leads to API Keys, Billing, Settings', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'menu');
    await openSignedIn(page, account);
    const items: [string, string, string][] = [
      ['API Keys', '/api-keys', 'API Keys'],
      ['Billing', '/billing', 'Billing & Subscription'],
      ['Settings', '/settings', 'Settings'],
    ];
    for (const [item, path, heading] of items) {
      await page.getByRole('button', { name: `Account menu for ${account.email}` }).click();
      await expect(page.getByRole('menu')).toContainText(account.email);
      await page.getByRole('menuitem', { name: item }).click();
      await expect(page).toHaveURL(path);
      await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
    }
  });

  test('Logout forgets the session', async ({ page, request }) => {
    const account = await createAccount(request, 'logout');
    await openSignedIn(page, account);
    await page.getByRole('button', { name: /Account menu/ }).click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await expect(page).toHaveURL('/login');
    expect(await storedToken(page)).toBeNull();
    await page.goto('/dashboard');
    await expect(page).toHaveURL('/login');
    // The server revoked it too.
    const me = await request.get('/auth/me', {
      headers: { Authorization: `Bearer ${account.token}` },
    });
    expect(me.status()).toBe(401);
  });

  test('on a phone, the navigation sits behind a menu button', async ({ page, request }) => {
    await page.setViewportSize({ width: 375, height: 812 });
    const account = await createAccount(request, 'mobile');
    await openSignedIn(page, account);
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden();
    await page.getByRole('button', { name: 'Open navigation menu' }).click();
    await page.getByRole('dialog').getByRole('link', { name: 'Relations' }).click();
    await expect(page).toHaveURL('/relations');
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(
      page.getByRole('heading', { level: 1, name: 'Relation Management' }),
    ).toBeVisible();
    // Nothing spills sideways at 375px.
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - window.innerWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
  });
});
