import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { createAccount, openSignedIn, saveScreenshot, type Account } from './support';

/**
 * Settings → Webhooks against the real server, which global-setup starts with
 * ALLOW_PRIVATE_NETWORK_TARGETS=true so an endpoint may be this test's own
 * receiver on 127.0.0.1 (over http). Without a payment provider a plan
 * bought through checkout applies at once.
 */

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: { id: string; type: string; data: unknown };
}

/** An HTTP receiver on a free port: keeps every request, answers with `status` (200 unless changed). */
async function startReceiver() {
  const received: Received[] = [];
  const state = { status: 200 };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: request.headers, body, json: JSON.parse(body) as Received['json'] });
      response.writeHead(state.status, { 'content-type': 'text/plain' });
      response.end(state.status === 200 ? 'ok' : 'receiver says no');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('No receiver port');
  return {
    url: `http://127.0.0.1:${address.port}/engram-hook`,
    received,
    state,
    ofType: (type: string) => received.filter((request) => request.json.type === type),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** What a receiver checks: one v1 of Engram-Signature is the HMAC-SHA256 of "t.body" with the secret. */
function signedWith(request: Received, secret: string): boolean {
  const header = String(request.headers['engram-signature'] ?? '');
  const parts = header.split(',').map((part) => part.split('=', 2));
  const t = parts.find(([key]) => key === 't')?.[1];
  const expected = createHmac('sha256', secret).update(`${t}.${request.body}`).digest('hex');
  return parts.some(([key, value]) => key === 'v1' && value === expected);
}

const bearer = (account: Account) => ({ Authorization: `Bearer ${account.token}` });

async function upgradeToPro(request: APIRequestContext, account: Account) {
  const upgrade = await request.post('/api/billing/checkout', {
    headers: bearer(account),
    data: {
      priceId: 'price_pro_monthly',
      successUrl: 'http://127.0.0.1/dashboard',
      cancelUrl: 'http://127.0.0.1/billing',
    },
  });
  expect(upgrade.ok(), await upgrade.text()).toBe(true);
}

async function createEntity(request: APIRequestContext, account: Account, name: string) {
  const response = await request.post('/api/entities', {
    headers: bearer(account),
    data: { name, type: 'person', observations: ['Met at the webhook test'] },
  });
  expect(response.status(), await response.text()).toBe(201);
}

const toast = (page: Page, text: string | RegExp) =>
  page.locator('[data-sonner-toast]').filter({ hasText: text });

/** The page is no wider than its viewport (wide tables scroll inside their own box). */
async function expectNoOverflow(page: Page) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
}

test.describe('Webhooks', () => {
  test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

  test('the Free plan has a quiet note with a link to the plans instead of the form', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'webhooks-free');
    await openSignedIn(page, account, '/settings/webhooks');
    const card = page.getByRole('region', { name: 'Webhooks' });
    const note = card.getByTestId('webhooks-plan-note');
    await expect(note).toHaveText(
      "Your Free plan does not include webhooks. Compare plans to send your graph's changes to your own endpoints.",
    );
    await expect(card.getByRole('button', { name: 'Add endpoint' })).toHaveCount(0);
    // The server agrees: Free has no endpoints at all.
    const refused = await request.post('/api/webhooks', {
      headers: bearer(account),
      data: { url: 'https://example.com/hook', events: ['*'] },
    });
    expect(refused.status()).toBe(402);
    await shootBothWidths(page, 'webhooks-free');
    await note.getByRole('link', { name: 'Compare plans' }).click();
    await expect(page).toHaveURL('/pricing');
  });

  test('an endpoint: its secret once, a test, a change delivered and signed, disable and enable, rotate, delete', async ({
    page,
    request,
  }) => {
    test.setTimeout(120_000);
    const receiver = await startReceiver();
    try {
      const account = await createAccount(request, 'webhooks');
      await upgradeToPro(request, account);

      await openSignedIn(page, account, '/settings');
      await page
        .getByRole('navigation', { name: 'Settings sections' })
        .getByRole('link', { name: 'Webhooks' })
        .click();
      await expect(page).toHaveURL('/settings/webhooks');
      const card = page.getByRole('region', { name: 'Webhooks' });
      await expect(card.getByText(/No endpoints yet/)).toBeVisible();
      await expect(card.getByTestId('webhook-limit')).toHaveText('0 of 20 endpoints');

      // ── add it ────────────────────────────────────────────────────────────
      await card.getByRole('button', { name: 'Add endpoint' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add endpoint' });
      await dialog.getByLabel('Endpoint URL').fill(receiver.url);
      await dialog.getByLabel('Description (optional)').fill('The test receiver');
      // Only entities and relations being created, in the default space.
      await dialog.getByRole('checkbox', { name: /All events/ }).uncheck();
      const types = dialog.getByRole('list', { name: 'Event types' });
      await types.getByRole('checkbox', { name: 'entity_created' }).check();
      await types.getByRole('checkbox', { name: 'relation_created' }).check();
      await dialog.getByRole('radio', { name: 'One space' }).check();
      await dialog.getByRole('radio', { name: /^default/ }).check();
      await shootBothWidths(page, 'webhooks-add', { overflow: false });
      await dialog.getByRole('button', { name: 'Add endpoint' }).click();
      await expect(dialog).toBeHidden();

      const banner = page.getByRole('region', { name: 'Endpoint added' });
      await expect(
        banner.getByText("Save this secret now - you won't be able to see it again!"),
      ).toBeVisible();
      const secret = (await banner.getByTestId('new-webhook-secret').textContent()) ?? '';
      expect(secret).toMatch(/^whsec_/);
      await banner.getByRole('button', { name: 'Copy' }).click();
      await expect(banner.getByRole('button', { name: 'Copied' })).toBeVisible();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
      await banner.getByRole('button', { name: 'Dismiss' }).click();
      await expect(page.getByText(secret, { exact: true })).toHaveCount(0);

      const endpoint = card.getByRole('article', { name: receiver.url });
      await expect(endpoint.getByTestId('webhook-state')).toHaveText('Enabled');
      await expect(endpoint.getByText('The test receiver')).toBeVisible();
      await expect(endpoint.getByText('entity_created, relation_created')).toBeVisible();
      await expect(endpoint).toContainText('space default');
      await expect(card.getByTestId('webhook-limit')).toHaveText('1 of 20 endpoints');

      // ── a test, signed with the secret that was shown ─────────────────────
      await endpoint.getByRole('button', { name: 'Send test' }).click();
      await expect(toast(page, /Test delivered: 200 in/)).toBeVisible();
      expect(receiver.ofType('ping')).toHaveLength(1);
      expect(signedWith(receiver.ofType('ping')[0]!, secret)).toBe(true);
      const log = endpoint.getByRole('table', { name: `Deliveries to ${receiver.url}` });
      const rows = log.getByTestId('delivery');
      await expect(rows.first()).toContainText('ping');
      await expect(rows.first()).toContainText('Succeeded');
      await expect(rows.first()).toContainText('200');

      // ── a change in the graph arrives, and shows in the log ───────────────
      await createEntity(request, account, 'Grace Hopper');
      await expect
        .poll(() => receiver.ofType('entity_created').length, { timeout: 20_000 })
        .toBe(1);
      const created = receiver.ofType('entity_created')[0]!;
      expect(signedWith(created, secret)).toBe(true);
      expect(JSON.stringify(created.json.data)).toContain('Grace Hopper');
      await expect(async () => {
        await endpoint.getByRole('button', { name: 'Refresh' }).click();
        await expect(rows.filter({ hasText: 'entity_created' })).toHaveCount(1, { timeout: 2_000 });
      }).toPass({ timeout: 20_000 });
      await expect(rows.filter({ hasText: 'entity_created' })).toContainText('Succeeded');

      // ── a refusing receiver: a failed test in the log ─────────────────────
      receiver.state.status = 500;
      await endpoint.getByRole('button', { name: 'Send test' }).click();
      await expect(toast(page, 'Test failed: HTTP 500')).toBeVisible();
      await expect(rows.first()).toContainText('Failed');
      await expect(rows.first()).toContainText('500');
      receiver.state.status = 200;

      // ── redeliver the change: the same event id again ─────────────────────
      await rows
        .filter({ hasText: 'entity_created' })
        .getByRole('button', { name: /^Redeliver entity_created/ })
        .click();
      await expect(toast(page, /Delivered: 200 in/)).toBeVisible();
      await expect.poll(() => receiver.ofType('entity_created').length).toBe(2);
      expect(receiver.ofType('entity_created')[1]!.json.id).toBe(created.json.id);

      // ── disabled, it hears nothing; enabled again, it catches up ──────────
      await endpoint.getByRole('button', { name: `Actions for ${receiver.url}` }).click();
      await page.getByRole('menuitem', { name: 'Disable' }).click();
      await expect(toast(page, 'Endpoint disabled')).toBeVisible();
      await expect(endpoint.getByTestId('webhook-state')).toHaveText('Disabled');
      await createEntity(request, account, 'Alan Turing');
      await page.waitForTimeout(3_000);
      expect(receiver.ofType('entity_created')).toHaveLength(2);
      await endpoint.getByRole('button', { name: 'Enable' }).click();
      await expect(toast(page, 'Endpoint enabled')).toBeVisible();
      await expect(endpoint.getByTestId('webhook-state')).toHaveText('Enabled');
      await expect
        .poll(() => receiver.ofType('entity_created').length, { timeout: 20_000 })
        .toBe(3);
      expect(JSON.stringify(receiver.ofType('entity_created')[2]!.json.data)).toContain(
        'Alan Turing',
      );

      // ── edit: the description and events change, the secret stays ────────
      await endpoint.getByRole('button', { name: `Actions for ${receiver.url}` }).click();
      await page.getByRole('menuitem', { name: 'Edit' }).click();
      const edit = page.getByRole('dialog', { name: 'Edit endpoint' });
      await edit.getByLabel('Description (optional)').fill('The test receiver, edited');
      await edit.getByRole('checkbox', { name: /All events/ }).check();
      await edit.getByRole('button', { name: 'Save changes' }).click();
      await expect(edit).toBeHidden();
      await expect(endpoint.getByText('The test receiver, edited')).toBeVisible();
      await expect(endpoint.getByText('All events')).toBeVisible();

      // ── rotate: the new secret signs, shown once, with the old one's end ──
      await endpoint.getByRole('button', { name: `Actions for ${receiver.url}` }).click();
      await page.getByRole('menuitem', { name: 'Rotate secret' }).click();
      const rotate = page.getByRole('dialog', { name: 'Rotate signing secret' });
      await rotate.getByRole('button', { name: 'Rotate secret' }).click();
      await expect(rotate).toBeHidden();
      const rotated = page.getByRole('region', { name: 'Signing secret rotated' });
      await expect(rotated).toContainText('The previous secret signs them too until');
      const newSecret = (await rotated.getByTestId('new-webhook-secret').textContent()) ?? '';
      expect(newSecret).toMatch(/^whsec_/);
      expect(newSecret).not.toBe(secret);
      await endpoint.getByRole('button', { name: 'Send test' }).click();
      await expect.poll(() => receiver.ofType('ping').length).toBe(3);
      const lastPing = receiver.ofType('ping')[2]!;
      expect(signedWith(lastPing, newSecret)).toBe(true);
      expect(signedWith(lastPing, secret)).toBe(true);

      // ── a receiver that keeps failing: retried, and the endpoint says since when ──
      receiver.state.status = 503;
      await createEntity(request, account, 'Ada Lovelace');
      await expect(async () => {
        await endpoint.getByRole('button', { name: 'Refresh' }).click();
        await expect(rows.first()).toContainText('Retrying', { timeout: 2_000 });
      }).toPass({ timeout: 20_000 });
      await expect(rows.first()).toContainText('503');
      await expect(rows.first()).toContainText(/in \d+ s/);
      await expect(endpoint.getByTestId('webhook-state')).toHaveText('Failing');
      await expect(endpoint.getByTestId('webhook-failing')).toContainText('Failing since');
      await shootBothWidths(page, 'webhooks');
      receiver.state.status = 200;

      // ── delete, after asking ──────────────────────────────────────────────
      await endpoint.getByRole('button', { name: `Actions for ${receiver.url}` }).click();
      await page.getByRole('menuitem', { name: 'Delete' }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete endpoint' });
      await confirm.getByRole('button', { name: 'Delete endpoint' }).click();
      await expect(toast(page, 'Endpoint deleted')).toBeVisible();
      await expect(card.getByText(/No endpoints yet/)).toBeVisible();
      await expect(page.getByRole('region', { name: 'Signing secret rotated' })).toHaveCount(0);
    } finally {
      await receiver.close();
    }
  });
});

/** The screen with its log open, at desktop and phone width (toasts hidden); neither scrolls sideways. */
async function shootBothWidths(page: Page, name: string, { overflow = true } = {}) {
  const hideToasts = await page.addStyleTag({
    content:
      '[data-sonner-toaster], [data-sonner-toast], [aria-label="Live updates"] { display: none !important; }',
  });
  await page.mouse.move(0, 0);
  await saveScreenshot(page, `${name}-desktop`);
  await page.setViewportSize({ width: 375, height: 812 });
  if (overflow) await expectNoOverflow(page);
  await saveScreenshot(page, `${name}-mobile`);
  await page.setViewportSize({ width: 1280, height: 800 });
  await hideToasts.evaluate((element) => (element as Element).remove());
}
