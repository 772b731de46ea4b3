import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { PrivateServer } from './private-server';
import { createAccount, openSignedIn, PASSWORD, saveScreenshot, uniqueEmail } from './support';
import { StripeFake } from '../../server/src/test/fakes/stripe';

/**
 * Billing (docs/product.md: The signed-in app, States, Calls, Failures) against the real server. The shared server
 * runs with no payment provider (the `none` default): plan changes apply at
 * once. The paid sign-up runs on a private server pointed at a local fake of
 * Stripe's API (the server's own test support), whose checkout page pays and
 * sends signed webhooks back — nothing reaches Stripe.
 */

const MOBILE = { width: 375, height: 812 };
const DESKTOP = { width: 1280, height: 800 };

async function shoot(page: Page, name: string) {
  await page.setViewportSize(DESKTOP);
  await saveScreenshot(page, `${name}-desktop`);
  await page.setViewportSize(MOBILE);
  await saveScreenshot(page, `${name}-mobile`);
  await page.setViewportSize(DESKTOP);
}

const currentPlan = (page: Page) => page.getByRole('region', { name: 'Current plan' });
const limit = (page: Page, label: string): Locator =>
  page
    .getByRole('region', { name: 'Plan features' })
    .getByTestId('plan-limit')
    .filter({ hasText: label })
    .locator('dd');

async function openPlanDialog(page: Page) {
  await currentPlan(page).getByRole('button', { name: 'Change Plan' }).click();
  return page.getByRole('dialog', { name: 'Change Plan' });
}

const toast = (page: Page, text: string) =>
  page.locator('[data-sonner-toast]').filter({ hasText: text });

test.describe('Billing without a payment provider', () => {
  test('moves between plans both ways; the limits follow on billing and the dashboard', async ({
    page,
    request,
  }) => {
    test.setTimeout(90_000);
    const account = await createAccount(request, 'billing-plans');
    await openSignedIn(page, account, '/billing');
    await expect(
      page.getByRole('heading', { level: 1, name: 'Billing & Subscription' }),
    ).toBeVisible();
    await expect(currentPlan(page).getByTestId('current-plan-name')).toHaveText('Free');
    await expect(currentPlan(page).getByText('Active')).toBeVisible();
    await expect(limit(page, 'Max Entities')).toHaveText('1,000');
    await expect(limit(page, 'Webhook Endpoints')).toHaveText('0');
    await expect(page.getByText('No payment methods on file')).toBeVisible();
    await expect(page.getByText('No billing history available')).toBeVisible();
    await expect(
      currentPlan(page).getByRole('button', { name: 'Cancel Subscription' }),
    ).toHaveCount(0);
    await shoot(page, 'billing-free');

    // The plan dialog: current plan chosen, Free only monthly, nothing chosen on the annual tab.
    let dialog = await openPlanDialog(page);
    await expect(dialog.getByRole('radio', { name: 'Free' })).toBeChecked();
    // Confirming the plan the person is on would change nothing: disabled, and said why.
    await expect(dialog.getByRole('button', { name: 'Downgrade' })).toBeDisabled();
    await expect(dialog.getByTestId('plan-choice-hint')).toHaveText(
      'You are on the Free plan. Choose another plan to change.',
    );
    await shoot(page, 'billing-change-plan-current');
    await dialog.getByRole('radio', { name: /Annual/ }).click();
    await expect(dialog.getByRole('radio', { name: 'Free' })).toHaveCount(0);
    await expect(dialog.getByRole('button', { name: 'Change Plan' })).toBeDisabled();
    await dialog.getByRole('radio', { name: 'Pro' }).check();
    await expect(dialog.getByRole('button', { name: 'Change Plan' })).toBeEnabled();
    await shoot(page, 'billing-change-plan-dialog');

    // From Free, a paid plan goes through checkout: without a provider it applies at once
    // and returns to the dashboard with success=true&plan=.
    await dialog.getByRole('button', { name: 'Change Plan' }).click();
    await expect(page).toHaveURL('/dashboard');
    await expect(toast(page, 'Plan changed successfully')).toBeVisible();
    await expect(toast(page, 'You are now on the Pro plan.')).toBeVisible();
    await expect(page.getByRole('progressbar', { name: 'Entities' }).first()).toHaveAttribute(
      'aria-valuetext',
      /\/ 100,000\)/,
    );
    await shoot(page, 'billing-return-dashboard');

    await page.goto('/billing');
    await expect(currentPlan(page).getByTestId('current-plan-name')).toHaveText('Pro');
    await expect(currentPlan(page).getByText('Most Popular')).toBeVisible();
    await expect(limit(page, 'Max Entities')).toHaveText('100,000');
    await expect(currentPlan(page).getByTestId('billing-date')).toContainText('Next billing date');
    await expect(currentPlan(page).getByText('$200 / year')).toBeVisible();

    const periodEnd = (await currentPlan(page).getByTestId('billing-date').innerText()).replace(
      'Next billing date ',
      '',
    );

    // Pro annual → Starter monthly: a downgrade, so at the end of the year; Pro stays until then.
    dialog = await openPlanDialog(page);
    await expect(dialog.getByRole('radio', { name: /Annual/ })).toHaveAttribute('data-state', 'on');
    await expect(dialog.getByRole('radio', { name: 'Pro' })).toBeChecked();
    await expect(dialog.getByRole('button', { name: 'Change Plan' })).toBeDisabled();
    await dialog.getByRole('radio', { name: 'Monthly' }).click();
    await dialog.getByRole('radio', { name: 'Starter' }).check();
    await expect(dialog.getByTestId('plan-choice-hint')).toHaveText(
      `Pro stays until ${periodEnd}; Starter applies from then.`,
    );
    await shoot(page, 'billing-change-plan-downgrade');
    await dialog.getByRole('button', { name: 'Change Plan' }).click();
    await expect(toast(page, 'Plan changed successfully')).toBeVisible();
    await expect(dialog).toBeHidden();
    await expect(currentPlan(page).getByTestId('current-plan-name')).toHaveText('Pro');
    await expect(currentPlan(page).getByTestId('scheduled-change')).toContainText(
      `Moves to Starter on ${periodEnd}. Pro and its limits stay until then`,
    );
    await expect(limit(page, 'Max Entities')).toHaveText('100,000');
    await shoot(page, 'billing-scheduled-downgrade');

    // Choosing Pro again calls the downgrade off.
    dialog = await openPlanDialog(page);
    await expect(dialog.getByRole('radio', { name: 'Pro' })).toBeChecked();
    await expect(dialog.getByTestId('plan-choice-hint')).toHaveText(
      `Keeps Pro: the move to Starter on ${periodEnd} is called off.`,
    );
    await dialog.getByRole('button', { name: 'Change Plan' }).click();
    await expect(dialog).toBeHidden();
    await expect(currentPlan(page).getByTestId('scheduled-change')).toHaveCount(0);
    await expect(currentPlan(page).getByTestId('billing-date')).toContainText(periodEnd);

    // Cancel at the period end, then reactivate.
    await currentPlan(page).getByRole('button', { name: 'Cancel Subscription' }).click();
    const cancel = page.getByRole('dialog', { name: 'Cancel Subscription' });
    await expect(cancel).toContainText('It stays active until');
    await shoot(page, 'billing-cancel-dialog');
    await cancel.getByRole('button', { name: 'Cancel Subscription' }).click();
    await expect(
      toast(page, 'Subscription will be cancelled at the end of the billing period'),
    ).toBeVisible();
    await expect(currentPlan(page).getByTestId('billing-date')).toContainText(
      'Subscription ends on',
    );
    await expect(
      currentPlan(page).getByRole('button', { name: 'Cancel Subscription' }),
    ).toHaveCount(0);
    // Still Pro until the period ends.
    await expect(limit(page, 'Max Entities')).toHaveText('100,000');
    await shoot(page, 'billing-cancelling');
    await currentPlan(page).getByRole('button', { name: 'Reactivate' }).click();
    await expect(toast(page, 'Subscription reactivated')).toBeVisible();
    await expect(currentPlan(page).getByTestId('billing-date')).toContainText('Next billing date');

    // Down to Free: 'Downgrade', no price; Free from the period end, like a cancellation.
    dialog = await openPlanDialog(page);
    await dialog.getByRole('radio', { name: 'Monthly' }).click();
    await dialog.getByRole('radio', { name: 'Free' }).check();
    await expect(dialog.getByTestId('plan-choice-hint')).toHaveText(
      `Pro stays until ${periodEnd}; Free applies from then.`,
    );
    await dialog.getByRole('button', { name: 'Downgrade' }).click();
    await expect(toast(page, 'Plan changed to Free')).toBeVisible();
    await expect(
      toast(page, `Pro stays until ${periodEnd}; Free applies from then.`),
    ).toBeVisible();
    await expect(currentPlan(page).getByTestId('current-plan-name')).toHaveText('Pro');
    await expect(currentPlan(page).getByTestId('billing-date')).toContainText(
      `Subscription ends on ${periodEnd}`,
    );
    await expect(currentPlan(page).getByRole('button', { name: 'Reactivate' })).toBeVisible();
    await expect(limit(page, 'Max Entities')).toHaveText('100,000');

    await page.getByRole('link', { name: 'Dashboard' }).first().click();
    await expect(page.getByRole('progressbar', { name: 'Entities' }).first()).toHaveAttribute(
      'aria-valuetext',
      /\/ 100,000\)/,
    );
  });

  test('says payments are not configured instead of a card form', async ({ page, request }) => {
    const account = await createAccount(request, 'billing-card');
    const stripeRequests: string[] = [];
    page.on('request', (r) => {
      if (/stripe\.com/.test(r.url())) stripeRequests.push(r.url());
    });
    await openSignedIn(page, account, '/billing');
    await page.getByRole('button', { name: 'Add Payment Method' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add Payment Method' });
    await expect(dialog.getByText('Payments are not configured on this server')).toBeVisible();
    await shoot(page, 'billing-add-payment-method');
    expect(stripeRequests).toEqual([]);
  });

  test('a cancelled checkout returns to billing with a notice', async ({ page, request }) => {
    const account = await createAccount(request, 'billing-cancelled');
    await openSignedIn(page, account, '/billing?canceled=true&plan=pro');
    await expect(toast(page, 'Checkout cancelled')).toBeVisible();
    await expect(page).toHaveURL('/billing');
    await expect(currentPlan(page).getByTestId('current-plan-name')).toHaveText('Free');
  });
});

// ── a shared server: plans are the operator's ───────────────────────────────

const OPERATOR = 'Plan changes on this server are made by its operator.';
const SERVER_MAIN = fileURLToPath(new URL('../../server/dist/main.js', import.meta.url));

/** Starts (or restarts) a private server with these settings, in its environment only while it starts. */
async function startWith(server: PrivateServer, env: Record<string, string>): Promise<void> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    await server.start();
  } finally {
    for (const key of Object.keys(env)) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  }
}

/** What a shared server gets by default (HOST not loopback, or PUBLIC_URL); said outright here. */
const OPERATOR_ENV = { PLAN_SELF_SERVICE: 'false' };

test.describe('Billing on a server whose operator sets plans', () => {
  test.describe.configure({ mode: 'serial' });
  let server: PrivateServer;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    server = await PrivateServer.create();
    await startWith(server, OPERATOR_ENV);
  });
  test.afterAll(async () => {
    await server?.dispose();
  });

  test('says the operator changes plans, refuses taking one, and shows the plan the operator set', async ({
    page,
    request,
  }) => {
    test.setTimeout(120_000);
    const email = uniqueEmail('billing-operator');
    const registered = await request.post(`${server.baseUrl}/auth/register`, {
      data: { email, password: PASSWORD, firstName: 'Ada', lastName: 'Lovelace' },
    });
    expect(registered.status()).toBe(201);
    const { token } = (await registered.json()) as { token: string };
    await page.goto(`${server.baseUrl}/pricing`);
    await page.evaluate((value) => localStorage.setItem('auth_token', value), token);
    await page.goto(`${server.baseUrl}/billing`);

    await expect(currentPlan(page).getByTestId('current-plan-name')).toHaveText('Free');
    await expect(currentPlan(page).getByTestId('plan-changes')).toHaveText(
      `${OPERATOR} Ask the person who runs it for another plan.`,
    );
    await expect(currentPlan(page).getByText(/plan changes apply at once/)).toHaveCount(0);
    await shoot(page, 'billing-operator');

    const dialog = await openPlanDialog(page);
    await expect(dialog).toContainText(
      `${OPERATOR} You can move to Free here; ask the person who runs it for any other plan.`,
    );
    await dialog.getByRole('radio', { name: 'Power User' }).check();
    await dialog.getByRole('button', { name: 'Change Plan' }).click();
    // The failure shows the server's text (docs/product.md, Failures).
    await expect(toast(page, OPERATOR)).toBeVisible();
    await expect(dialog).toBeVisible();
    await shoot(page, 'billing-operator-refused');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(currentPlan(page).getByTestId('current-plan-name')).toHaveText('Free');
    await expect(limit(page, 'Max Entities')).toHaveText('1,000');

    // The operator sets the plan (the embedded database is one process's: stop, set, start).
    await server.stop();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [SERVER_MAIN, 'plan', 'set', email, 'team'],
      { env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: 'silent' } },
    );
    expect(stdout.trim()).toBe(`${email}: Free (free) → Power User (team)`);
    await startWith(server, OPERATOR_ENV);

    await page.reload();
    await expect(currentPlan(page).getByTestId('current-plan-name')).toHaveText('Power User');
    await expect(limit(page, 'Max Entities')).toHaveText('1,000,000');
    await expect(currentPlan(page).getByTestId('plan-changes')).toHaveText(
      `${OPERATOR} Ask the person who runs it for another plan; you can still cancel or move to Free here.`,
    );
    await shoot(page, 'billing-operator-team');
  });
});

// ── with Stripe (a local fake) ──────────────────────────────────────────────

const WEBHOOK_SECRET = 'whsec_e2e_engram';
const STRIPE_ENV = {
  STRIPE_SECRET_KEY: 'sk_test_e2e',
  STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  STRIPE_PUBLISHABLE_KEY: 'pk_test_e2e',
  STRIPE_PRICE_STARTER_MONTHLY: 'price_e2e_starter_m',
  STRIPE_PRICE_STARTER_ANNUAL: 'price_e2e_starter_y',
  STRIPE_PRICE_PRO_MONTHLY: 'price_e2e_pro_m',
  STRIPE_PRICE_PRO_ANNUAL: 'price_e2e_pro_y',
  STRIPE_PRICE_TEAM_MONTHLY: 'price_e2e_team_m',
  STRIPE_PRICE_TEAM_ANNUAL: 'price_e2e_team_y',
};

/** The server's own Stripe stand-in (its test support, not part of the server's build). */
async function startFakeStripe(webhookUrl: string): Promise<StripeFake> {
  return StripeFake.start({ webhookSecret: WEBHOOK_SECRET, webhookUrl });
}

/** A private server billing through the fake; its env is set only while it starts. */
async function stripeServer(): Promise<{ server: PrivateServer; fake: StripeFake }> {
  const server = await PrivateServer.create();
  const fake = await startFakeStripe(`${server.baseUrl}/api/billing/webhook`);
  const saved = { ...process.env };
  Object.assign(process.env, STRIPE_ENV, { STRIPE_API_BASE: fake.baseUrl });
  try {
    await server.start();
  } finally {
    for (const key of [...Object.keys(STRIPE_ENV), 'STRIPE_API_BASE']) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  }
  return { server, fake };
}

async function signUpWithPlan(page: Page, baseUrl: string, label: string) {
  await page.goto(`${baseUrl}/signup?plan=pro&billing=monthly`);
  await expect(page.getByText('Selected Plan')).toBeVisible();
  await page.getByLabel('First Name').fill('Ada');
  await page.getByLabel('Last Name').fill('Lovelace');
  await page.getByLabel('Email Address').fill(uniqueEmail(label));
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Confirm Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create Account & Subscribe to Pro' }).click();
}

test.describe('Billing through Stripe (local fake)', () => {
  test.describe.configure({ mode: 'serial' });
  let server: PrivateServer;
  let fake: StripeFake;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    ({ server, fake } = await stripeServer());
  });
  test.afterAll(async () => {
    await server?.dispose();
    await fake?.stop();
  });

  test('a paid sign-up goes through hosted checkout; the webhooks activate the plan', async ({
    page,
  }) => {
    test.setTimeout(90_000);
    await signUpWithPlan(page, server.baseUrl, 'stripe-paid');
    await expect(page).toHaveURL(new RegExp(`^${fake.baseUrl}/pay/cs_test_`));
    await expect(page.getByRole('heading', { name: 'Fake Checkout' })).toBeVisible();
    await expect(page.locator('#price')).toHaveText('price_e2e_pro_m');

    await page.getByRole('button', { name: 'Pay' }).click();
    // Back on the dashboard (payment=success), the webhooks already applied.
    await expect(page).toHaveURL(`${server.baseUrl}/dashboard`);
    await expect(toast(page, 'Payment successful! Your subscription is now active.')).toBeVisible();
    await expect(page.getByRole('progressbar', { name: 'Entities' }).first()).toHaveAttribute(
      'aria-valuetext',
      /\/ 100,000\)/,
    );

    await page.goto(`${server.baseUrl}/billing`);
    await expect(currentPlan(page).getByTestId('current-plan-name')).toHaveText('Pro');
    await expect(currentPlan(page).getByText('$20 / month')).toBeVisible();
    await expect(currentPlan(page).getByText(/without a payment provider/)).toHaveCount(0);
    const card = page.getByRole('listitem', { name: 'Visa ending in 4242' });
    await expect(card).toContainText('Expires 12/2031');
    const history = page.getByRole('region', { name: 'Billing history' });
    await expect(history.getByRole('row').nth(1)).toContainText('$20.00 USD');
    await expect(history.getByRole('row').nth(1)).toContainText('Paid');
    await expect(history.getByRole('link', { name: /^View invoice FAKE-/ })).toHaveAttribute(
      'target',
      '_blank',
    );

    await card.getByRole('button', { name: 'Set as Default' }).click();
    await expect(toast(page, 'Default payment method updated')).toBeVisible();
    await expect(card.getByText('Default', { exact: true })).toBeVisible();
    await shoot(page, 'billing-stripe');
    expect(fake.calls).toEqual(
      expect.arrayContaining([
        'POST /v1/customers',
        'POST /v1/checkout/sessions',
        // Each subscription event applies the customer's subscriptions as Stripe has them now.
        'GET /v1/subscriptions',
        expect.stringMatching(/^POST \/v1\/customers\/cus_/),
      ]),
    );
  });

  test('a cancelled checkout comes back to sign-up, signed in on Free', async ({ page }) => {
    await signUpWithPlan(page, server.baseUrl, 'stripe-cancel');
    await expect(page.getByRole('heading', { name: 'Fake Checkout' })).toBeVisible();
    await page.getByRole('link', { name: 'Cancel' }).click();
    await expect(toast(page, 'Payment cancelled')).toBeVisible();
    // A signed-in visitor does not stay on sign-up.
    await expect(page).toHaveURL(`${server.baseUrl}/dashboard`);
    await page.goto(`${server.baseUrl}/billing`);
    await expect(currentPlan(page).getByTestId('current-plan-name')).toHaveText('Free');
  });
});
