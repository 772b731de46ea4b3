import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { PASSWORD, saveScreenshot, uniqueEmail, type Account } from './support';

/**
 * Teams (issue 40) against the real server: an owner on Pro invites a
 * colleague, who signs up through the link and joins; the colleague switches
 * between their accounts, meets billing they may not change, as a viewer is
 * offered no writes, and is removed.
 * Without SMTP settings the server emails nothing: the link is shown to copy.
 */

const OWNER_ONLY = 'Access denied. Only account owners can change billing plans.';

/** An account registered through the API under a name of its own (the account is named after its person). */
async function register(
  request: APIRequestContext,
  label: string,
  firstName: string,
  lastName: string,
): Promise<Account> {
  const details = { email: uniqueEmail(label), password: PASSWORD, firstName, lastName };
  const response = await request.post('/auth/register', { data: details });
  expect(response.status(), await response.text()).toBe(201);
  const { token } = (await response.json()) as { token: string };
  return { ...details, token };
}

async function upgradeToPro(request: APIRequestContext, account: Account) {
  const upgrade = await request.post('/api/billing/checkout', {
    headers: { Authorization: `Bearer ${account.token}` },
    data: {
      priceId: 'price_pro_monthly',
      successUrl: 'http://127.0.0.1/dashboard',
      cancelUrl: 'http://127.0.0.1/billing',
    },
  });
  expect(upgrade.ok(), await upgrade.text()).toBe(true);
}

async function openAs(page: Page, account: Account, path: string) {
  await page.goto('/pricing');
  await page.evaluate((token) => localStorage.setItem('auth_token', token), account.token);
  await page.goto(path);
}

const toast = (page: Page, text: string | RegExp) =>
  page.locator('[data-sonner-toast]').filter({ hasText: text });

/**
 * The page is no wider than its viewport, once its layout has followed a
 * resize (an open menu is placed again a frame after the viewport changes).
 */
async function expectNoOverflow(page: Page) {
  await expect
    .poll(() =>
      page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      ),
    )
    .toBeLessThanOrEqual(0);
}

/** Full-page pictures at 1280 and 375 px, for people to look at (toasts hidden). */
async function shootBothWidths(page: Page, name: string) {
  const hideToasts = await page.addStyleTag({
    content:
      '[data-sonner-toaster], [data-sonner-toast], [aria-label="Live updates"] { display: none !important; }',
  });
  await page.mouse.move(0, 0);
  await saveScreenshot(page, `${name}-desktop`);
  await page.setViewportSize({ width: 375, height: 812 });
  await expectNoOverflow(page);
  await saveScreenshot(page, `${name}-mobile`);
  await page.setViewportSize({ width: 1280, height: 800 });
  await hideToasts.evaluate((element) => (element as Element).remove());
}

test.describe('Members', () => {
  test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

  test('a plan for one person says so, with a link to the plans', async ({ page, request }) => {
    const solo = await register(request, 'members-free', 'Ada', 'Lovelace');
    await openAs(page, solo, '/settings/members');
    const card = page.getByRole('region', { name: 'Members' });
    await expect(card.getByTestId('member-limit')).toHaveText('1 of 1 member');
    await expect(card.getByTestId('members-plan-note')).toHaveText(
      'Your Free plan is for one person. Compare plans to invite your team.',
    );
    await expect(card.getByRole('form', { name: 'Invite a member' })).toHaveCount(0);
    const refused = await request.post('/api/members/invitations', {
      headers: { Authorization: `Bearer ${solo.token}` },
      data: { email: uniqueEmail('nobody'), role: 'member' },
    });
    expect(refused.status()).toBe(402);
  });

  test('invite, sign up through the link, switch accounts, change the role, billing refused, remove', async ({
    page,
    browser,
    request,
  }) => {
    test.setTimeout(180_000);
    const owner = await register(request, 'members-owner', 'Katherine', 'Johnson');
    await upgradeToPro(request, owner);
    const colleagueEmail = uniqueEmail('members-colleague');

    // ── the owner invites a colleague ──────────────────────────────────────
    await openAs(page, owner, '/settings');
    await page
      .getByRole('navigation', { name: 'Settings sections' })
      .getByRole('link', { name: 'Members' })
      .click();
    await expect(page).toHaveURL('/settings/members');
    const card = page.getByRole('region', { name: 'Members' });
    await expect(card.getByTestId('member-limit')).toHaveText('1 of 5 members');
    const ownerRow = card.getByRole('list', { name: 'Members' }).getByRole('listitem');
    await expect(ownerRow).toHaveCount(1);
    await expect(ownerRow).toContainText('Katherine Johnson');
    await expect(ownerRow).toContainText('Owner');

    const form = card.getByRole('form', { name: 'Invite a member' });
    await form.getByLabel('Email address').fill(colleagueEmail);
    await form.getByLabel('Role').selectOption('member');
    await form.getByRole('button', { name: 'Invite' }).click();
    const banner = page.getByRole('region', { name: 'Invitation created' });
    await expect(banner).toContainText(
      `This server sends no email: copy the link and send it to ${colleagueEmail} yourself.`,
    );
    const link = (await banner.getByTestId('invitation-link').textContent()) ?? '';
    expect(link).toMatch(/\/invitations\/accept#token=eng_inv_/);
    await banner.getByRole('button', { name: 'Copy' }).click();
    await expect(banner.getByRole('button', { name: 'Copied' })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    const pending = card.getByRole('list', { name: 'Pending invitations' });
    await expect(pending.getByRole('listitem', { name: colleagueEmail })).toContainText('Member');
    await expect(card.getByTestId('member-limit')).toHaveText('2 of 5 members (1 invited)');
    await shootBothWidths(page, 'members-invited');

    // ── the colleague opens the link, signs up, signs in and joins ─────────
    const colleagueContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const colleague = await colleagueContext.newPage();
    try {
      await colleague.goto(link);
      await expect(
        colleague.getByRole('heading', { name: 'Join Katherine Johnson' }),
      ).toBeVisible();
      const terms = colleague.getByTestId('invitation-terms');
      await expect(terms).toContainText('Katherine Johnson');
      await expect(terms).toContainText('Member');
      await expect(terms).toContainText('Invited by');
      await shootBothWidths(colleague, 'invitation-signed-out');

      await colleague.getByRole('link', { name: 'Create an account' }).click();
      await expect(colleague).toHaveURL('/signup');
      await colleague.getByLabel('First Name').fill('Grace');
      await colleague.getByLabel('Last Name').fill('Hopper');
      await colleague.getByLabel('Email Address').fill(colleagueEmail);
      await colleague.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await colleague.getByLabel('Confirm Password').fill(PASSWORD);
      await colleague.getByRole('button', { name: 'Create Account' }).click();
      await expect(colleague).toHaveURL('/login', { timeout: 10_000 });
      await colleague.getByLabel('Email Address').fill(colleagueEmail);
      await colleague.getByLabel('Password').fill(PASSWORD);
      await colleague.getByRole('button', { name: 'Sign In' }).click();
      // Back on the invitation, now with Accept.
      await expect(colleague).toHaveURL(/\/invitations\/accept#token=/);
      const accept = colleague.getByRole('button', { name: 'Accept invitation' });
      await expect(accept).toBeVisible();
      await shootBothWidths(colleague, 'invitation-signed-in');
      await accept.click();
      await expect(colleague).toHaveURL('/dashboard');
      await expect(toast(colleague, 'You joined Katherine Johnson')).toBeVisible();

      // ── the switcher appears, and switches ───────────────────────────────
      const inOwners = colleague.getByRole('button', {
        name: 'Account: Katherine Johnson (Member)',
      });
      await expect(inOwners).toBeVisible();
      await inOwners.click();
      const menu = colleague.getByRole('menu');
      await expect(menu.getByRole('menuitem')).toHaveCount(2);
      await expect(menu.getByRole('menuitem', { name: /Grace Hopper/ })).toContainText('Owner');
      await expect(menu.getByRole('menuitem', { name: /Katherine Johnson/ })).toContainText(
        'Member',
      );
      await shootBothWidths(colleague, 'account-switcher-open');
      await menu.getByRole('menuitem', { name: /Grace Hopper/ }).click();
      await expect(
        colleague.getByRole('button', { name: 'Account: Grace Hopper (Owner)' }),
      ).toBeVisible();
      // Their own account's members: only them.
      await colleague.goto('/settings/members');
      const theirs = colleague.getByRole('region', { name: 'Members' });
      await expect(theirs.getByRole('list', { name: 'Members' }).getByRole('listitem')).toHaveCount(
        1,
      );
      await colleague.getByRole('button', { name: 'Account: Grace Hopper (Owner)' }).click();
      await colleague
        .getByRole('menu')
        .getByRole('menuitem', { name: /Katherine Johnson/ })
        .click();
      await expect(
        colleague.getByRole('button', { name: 'Account: Katherine Johnson (Member)' }),
      ).toBeVisible();
      await expect(theirs.getByRole('list', { name: 'Members' }).getByRole('listitem')).toHaveCount(
        2,
      );
      // A member sees the list read-only.
      await expect(theirs.getByRole('combobox')).toHaveCount(0);
      await expect(theirs.getByRole('form', { name: 'Invite a member' })).toHaveCount(0);

      // ── the owner sees them join, and makes them a viewer ────────────────
      await page.reload();
      const grace = card.getByRole('listitem', { name: 'Grace Hopper' });
      await expect(grace).toContainText(colleagueEmail);
      await expect(card.getByRole('list', { name: 'Pending invitations' })).toHaveCount(0);
      await expect(card.getByTestId('member-limit')).toHaveText('2 of 5 members');
      const connected = colleague.getByRole('status', {
        name: 'Realtime connection: Connected',
        exact: true,
      });
      await expect(connected).toBeVisible();
      // A new role closes the colleague's live feed, which opens again with it.
      const reopened = colleague.waitForEvent('websocket', { timeout: 20_000 });
      await grace.getByRole('combobox', { name: 'Role of Grace Hopper' }).selectOption('viewer');
      await expect(toast(page, 'Grace Hopper is now a viewer')).toBeVisible();
      expect((await reopened).url()).toContain('&account=');
      await expect(connected).toBeVisible();
      await shootBothWidths(page, 'members-owner');

      // ── billing, which only owners change ────────────────────────────────
      await colleague.goto('/billing');
      await expect(colleague.getByTestId('billing-owner-only')).toContainText(OWNER_ONLY);
      const plan = colleague.getByRole('region', { name: 'Current plan' });
      await expect(plan.getByTestId('current-plan-name')).toHaveText('Pro');
      await expect(plan.getByRole('button', { name: 'Change Plan' })).toBeDisabled();
      await shootBothWidths(colleague, 'billing-not-owner');
      // The server agrees.
      const refused = await colleague.evaluate(async () => {
        const response = await fetch('/api/billing/change-plan', {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            Authorization: `Bearer ${localStorage.getItem('auth_token')}`,
            'X-Engram-Account': sessionStorage.getItem('engram_account') ?? '',
          },
          body: JSON.stringify({ planId: 'starter', priceId: 'price_starter_monthly' }),
        });
        return { status: response.status, body: (await response.json()) as { error: string } };
      });
      expect(refused).toEqual({
        status: 403,
        body: expect.objectContaining({ error: OWNER_ONLY }),
      });

      // ── a viewer is not offered the graph's writes ───────────────────────
      await colleague.goto('/entities');
      await expect(
        colleague.getByRole('button', { name: 'Account: Katherine Johnson (Viewer)' }),
      ).toBeVisible();
      await expect(
        colleague.getByText("Viewers can read but not change this account's memory"),
      ).toBeVisible();
      await expect(colleague.getByRole('button', { name: 'Refresh' })).toBeVisible();
      await expect(colleague.getByRole('button', { name: 'Create Entity' })).toHaveCount(0);
      // What a role stops, said the same way on each screen.
      await colleague.goto('/api-keys');
      await expect(colleague.getByTestId('api-keys-viewer-note')).toContainText(
        "Viewers can't create API keys; your personal key in Settings reads this account",
      );
      await shootBothWidths(colleague, 'api-keys-viewer');
      await colleague.goto('/settings/webhooks');
      await expect(colleague.getByTestId('webhooks-admins-only')).toHaveText(
        'Only owners and admins manage webhooks.',
      );
      await shootBothWidths(colleague, 'webhooks-not-admin');

      // ── the owner removes them ───────────────────────────────────────────
      await grace.getByRole('button', { name: 'Actions for Grace Hopper' }).click();
      await page.getByRole('menuitem', { name: 'Remove from account' }).click();
      const dialog = page.getByRole('dialog', { name: 'Remove member' });
      await expect(dialog).toContainText('Remove Grace Hopper');
      await dialog.getByRole('button', { name: 'Remove member' }).click();
      await expect(dialog).toBeHidden();
      await expect(card.getByRole('listitem', { name: 'Grace Hopper' })).toHaveCount(0);
      await expect(card.getByTestId('member-limit')).toHaveText('1 of 5 members');

      // The colleague's screen finds the account gone (its live feed is closed, or the next
      // call answers "Account not found") and shows their own account instead.
      await colleague
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Dashboard' })
        .click();
      await expect(toast(colleague, 'You no longer have access to that account')).toBeVisible();
      await expect(colleague.getByRole('button', { name: /^Account:/ })).toHaveCount(0);
      await colleague.goto('/billing');
      await expect(plan.getByTestId('current-plan-name')).toHaveText('Free');
      await expect(colleague.getByTestId('billing-owner-only')).toHaveCount(0);
    } finally {
      await colleagueContext.close();
    }
  });
});
