import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { PrivateServer } from './private-server';
import { createAccount, saveScreenshot, type Account } from './support';

/** The shell's connection badge (docs/product.md, The signed-in app; States). */
function badge(page: Page, label: string) {
  return page.getByRole('status', { name: `Realtime connection: ${label}`, exact: true });
}

/** The live notifications stack (docs/product.md, States). */
function liveUpdates(page: Page) {
  return page.getByRole('region', { name: 'Live updates' });
}

/** Signs in through the login form: each call is a session of its own. */
async function signIn(page: Page, account: Account, origin = ''): Promise<void> {
  await page.goto(`${origin}/login`);
  await page.getByLabel('Email Address').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page).toHaveURL(`${origin}/dashboard`);
}

/** Calls the REST API with the page's own session token, as the app would. */
function api(page: Page, origin = '') {
  const call = async (method: string, path: string, data?: unknown) => {
    const token = await page.evaluate(() => localStorage.getItem('auth_token'));
    const response = await page.request.fetch(`${origin}${path}`, {
      method,
      data,
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(response.ok(), `${method} ${path}: ${response.status()}`).toBe(true);
    return (await response.json()) as { id: string };
  };
  return call;
}

async function newPage(browser: Browser, width = 1280, height = 800): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height } });
  return context.newPage();
}

test.describe('Realtime', () => {
  test('a change made in one session shows live in another of the same account', async ({
    browser,
    request,
  }) => {
    test.setTimeout(90_000);
    const account = await createAccount(request, 'realtime');
    const a = await newPage(browser);
    const b = await newPage(browser);
    // Session b's clock is the test's: its notices (10 s each) stay while a busy
    // machine runs the checks below, and expire when the test moves time on.
    await b.clock.install();
    await signIn(a, account);
    await signIn(b, account);
    await expect(badge(a, 'Connected')).toBeVisible();
    await expect(badge(b, 'Connected')).toBeVisible();

    const call = api(a);
    const alice = await call('POST', '/api/entities', { name: 'Alice', type: 'person' });
    const notices = liveUpdates(b);
    await expect(notices.getByText('Entity "Alice" created')).toBeVisible();
    // The session that made the change hears about it too.
    await expect(liveUpdates(a).getByText('Entity "Alice" created')).toBeVisible();
    await b.clock.pauseAt((await b.evaluate(() => Date.now())) + 2_000);

    const engram = await call('POST', '/api/entities', { name: 'Engram', type: 'product' });
    await call('POST', `/api/entities/${alice.id}/observations`, {
      observations: ['Writes the first programs'],
    });
    const uses = await call('POST', '/api/relations', {
      fromEntityId: alice.id,
      toEntityId: engram.id,
      type: 'uses',
    });
    await call('PUT', `/api/entities/${alice.id}`, { name: 'Ada', type: 'person' });
    await call('POST', '/api/entities', { name: 'Babbage', type: 'person' });
    for (const text of [
      'Entity "Engram" created',
      'Observation added',
      'Relation "Uses" created',
      'Entity "Ada" updated',
      'Entity "Babbage" created',
    ]) {
      await expect(notices.getByText(text)).toBeVisible();
    }
    // At most 5: the oldest of the six has gone.
    await expect(notices.getByRole('listitem')).toHaveCount(5);
    await expect(notices.getByText('Entity "Alice" created')).toHaveCount(0);
    await notices.getByRole('button', { name: 'Dismiss: Entity "Babbage" created' }).click();
    await expect(notices.getByText('Entity "Babbage" created')).toHaveCount(0);
    await saveScreenshot(b, 'realtime-notifications-desktop');
    await b.setViewportSize({ width: 375, height: 812 });
    await saveScreenshot(b, 'realtime-notifications-mobile');
    const overflow = await b.evaluate(
      () => document.documentElement.scrollWidth - window.innerWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await b.setViewportSize({ width: 1280, height: 800 });

    await call('PUT', `/api/relations/${uses.id}`, { type: 'needs' });
    await call('DELETE', `/api/relations/${uses.id}`);
    await call('DELETE', `/api/entities/${engram.id}`);
    for (const text of [
      'Relation "Needs" updated',
      'Relation "Needs" deleted',
      'Entity "Engram" deleted',
    ]) {
      await expect(notices.getByText(text)).toBeVisible();
    }

    // Each one is gone 10 s after it arrived.
    await b.clock.runFor(9_000);
    await expect(notices.getByRole('listitem')).toHaveCount(5);
    await b.clock.runFor(1_000);
    await expect(notices.getByRole('listitem')).toHaveCount(0);
    await expect(badge(b, 'Connected')).toBeVisible();
    await a.context().close();
    await b.context().close();
  });
});

test.describe('Realtime across a server restart', () => {
  let server: PrivateServer;
  let serverRequest: APIRequestContext;

  test.beforeAll(async ({ playwright }) => {
    // Starting a server on a fresh data directory runs the migrations first.
    test.setTimeout(120_000);
    server = await PrivateServer.create();
    await server.start();
    serverRequest = await playwright.request.newContext({ baseURL: server.baseUrl });
  });
  test.afterAll(async () => {
    await serverRequest?.dispose();
    await server?.dispose();
  });

  test('the badge shows the connection going and coming back; nothing is missed', async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    const account = await createAccount(serverRequest, 'restart');
    const page = await newPage(browser);
    await signIn(page, account, server.baseUrl);
    await expect(badge(page, 'Connected')).toBeVisible();

    const call = api(page, server.baseUrl);
    await call('POST', '/api/entities', { name: 'Before', type: 'event' });
    await expect(liveUpdates(page).getByText('Entity "Before" created')).toBeVisible();

    await server.stop();
    await expect(badge(page, 'Disconnected')).toBeVisible();
    // Retrying every 5 s; the attempt is on the badge's tooltip.
    await expect(page.locator('[role="status"][title*="attempt"]')).toHaveCount(1, {
      timeout: 15_000,
    });

    await server.start();
    // Made before the client is back: replayed from the last seq it saw.
    await call('POST', '/api/entities', { name: 'While away', type: 'event' });
    await expect(badge(page, 'Connected')).toBeVisible({ timeout: 30_000 });
    await expect(liveUpdates(page).getByText('Entity "While away" created')).toBeVisible();

    // And live again afterwards.
    await call('POST', '/api/entities', { name: 'After', type: 'event' });
    await expect(liveUpdates(page).getByText('Entity "After" created')).toBeVisible();
    await page.context().close();
  });
});
