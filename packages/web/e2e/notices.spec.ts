import { mkdirSync } from 'node:fs';
import {
  expect,
  test,
  type APIRequestContext,
  type Locator,
  type Page,
  type Request,
} from '@playwright/test';
import { choose, createAccount, openSignedIn, type Account } from './support';

/**
 * Notices (toasts and live notification cards): one notice per change, never
 * over the header's controls, never in the way of a click; and an idle tab
 * that spends no operations.
 */

const SHOTS = '/tmp/helpers/notices';
const WIDTHS = [1280, 375] as const;

function liveUpdates(page: Page) {
  return page.getByRole('region', { name: 'Live updates' });
}

function toasts(page: Page) {
  return page.locator('[data-sonner-toast]');
}

/** A change made elsewhere: the REST API with the account's token, as an agent would. */
function elsewhere(request: APIRequestContext, account: Account) {
  return async (method: string, path: string, data?: unknown) => {
    const response = await request.fetch(path, {
      method,
      data,
      headers: { Authorization: `Bearer ${account.token}` },
    });
    expect(response.ok(), `${method} ${path}: ${response.status()}`).toBe(true);
    return (await response.json()) as { id: string };
  };
}

/** Today's operations as the server counts them (reading them is not an operation). */
async function operationsToday(request: APIRequestContext, account: Account): Promise<number> {
  const response = await request.get('/api/analytics', {
    headers: { Authorization: `Bearer ${account.token}` },
  });
  expect(response.ok()).toBe(true);
  return ((await response.json()) as { todayApiCalls: number }).todayApiCalls;
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}.png` });
}

/** The header's controls: connection badge, account menu, and on a phone the menu button. */
function headerControls(page: Page, width: number): Locator[] {
  const controls = [
    page.getByRole('status', { name: /^Realtime connection:/ }),
    page.getByRole('button', { name: /Account menu/ }),
  ];
  if (width < 640) controls.push(page.getByRole('button', { name: 'Open navigation menu' }));
  return controls;
}

async function box(locator: Locator) {
  const found = await locator.boundingBox();
  expect(found, 'has a box').not.toBeNull();
  return found!;
}

function overlaps(
  a: { x: number; y: number; width: number; height: number },
  b: { x: number; y: number; width: number; height: number },
): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** What a click at the middle of `locator` would land on is outside `locator` (it lets clicks through). */
async function clicksPassThrough(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => {
    const rect = element.getBoundingClientRect();
    const hit = document.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
    return hit !== null && !element.contains(hit);
  });
}

async function createEntityInTab(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: 'Create Entity' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Create Entity' });
  await dialog.getByLabel('Name').fill(name);
  await choose(page, dialog, 'Type', 'person');
  await dialog.getByRole('button', { name: 'Create Entity' }).click();
  await expect(dialog).toBeHidden();
}

test.describe('Notices', () => {
  for (const width of WIDTHS) {
    test(`one notice per change, clear of the header and of clicks (${width} px)`, async ({
      page,
      request,
    }) => {
      await page.setViewportSize({ width, height: width < 640 ? 812 : 800 });
      const account = await createAccount(request, `notices-${width}`);
      await openSignedIn(page, account, '/entities');
      await expect(
        page.getByRole('status', { name: 'Realtime connection: Connected' }),
      ).toBeVisible();

      // Made here: its toast, and no live card.
      await createEntityInTab(page, 'Made here');
      const toast = toasts(page).filter({ hasText: 'Entity created successfully' });
      await expect(toast).toBeVisible();

      // The toast sits below the header, clear of its controls, and lets clicks through.
      const header = await box(page.locator('header').first());
      // Measured once its entrance animation has ended (it slides in from above).
      await toast.evaluate((element) =>
        Promise.all(
          element.getAnimations({ subtree: true }).map((animation) => animation.finished),
        ),
      );
      const toastBox = await box(toast);
      expect(toastBox.y).toBeGreaterThanOrEqual(header.y + header.height);
      for (const control of headerControls(page, width)) {
        expect(overlaps(toastBox, await box(control))).toBe(false);
      }
      expect(await clicksPassThrough(toast)).toBe(true);
      await shot(page, `toast-${width}`);

      // Made elsewhere (an agent through the API): its live card. Events come in
      // order, so had the tab's own change a card, it would be there by now.
      const call = elsewhere(request, account);
      await call('POST', '/api/entities', { name: 'Made elsewhere', type: 'person' });
      const cards = liveUpdates(page).getByRole('listitem');
      await expect(cards.filter({ hasText: 'Entity "Made elsewhere" created' })).toBeVisible();
      await expect(cards).toHaveCount(1);
      await expect(liveUpdates(page)).not.toContainText('Made here');

      const card = cards.first();
      const cardBox = await box(card);
      for (const control of headerControls(page, width)) {
        expect(overlaps(cardBox, await box(control))).toBe(false);
      }
      if (await toast.isVisible()) expect(overlaps(cardBox, await box(toast))).toBe(false);
      // The card does not stand between the person and the page; its dismiss button works.
      expect(await clicksPassThrough(card)).toBe(true);
      await shot(page, `live-card-${width}`);

      // The header's controls stay usable while both notices show.
      await page.getByRole('button', { name: /Account menu/ }).click();
      await expect(page.getByRole('menu')).toContainText(account.email);
      await page.keyboard.press('Escape');

      await card.getByRole('button', { name: /^Dismiss:/ }).click();
      await expect(cards).toHaveCount(0);
    });
  }

  test('a live card words a relation type as the relations table does', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'notices-relation');
    const call = elsewhere(request, account);
    const paper = await call('POST', '/api/entities', { name: 'Paper', type: 'document' });
    const study = await call('POST', '/api/entities', { name: 'Study', type: 'document' });
    await openSignedIn(page, account, '/relations');
    await expect(
      page.getByRole('status', { name: 'Realtime connection: Connected' }),
    ).toBeVisible();

    await call('POST', '/api/relations', {
      fromEntityId: paper.id,
      toEntityId: study.id,
      type: 'based_on',
    });
    await expect(liveUpdates(page)).toContainText('Relation "Based on" created');
    await expect(liveUpdates(page)).not.toContainText('based_on');
    await expect(
      page.getByRole('main').getByText('Based on', { exact: true }).first(),
    ).toBeVisible();
  });

  test('a quick action stays clickable under live cards', async ({ page, request }) => {
    const account = await createAccount(request, 'notices-dashboard');
    await openSignedIn(page, account, '/dashboard');
    await expect(
      page.getByRole('status', { name: 'Realtime connection: Connected' }),
    ).toBeVisible();
    const call = elsewhere(request, account);
    for (const name of ['One', 'Two', 'Three', 'Four', 'Five']) {
      await call('POST', '/api/entities', { name, type: 'person' });
    }
    await expect(liveUpdates(page).getByRole('listitem')).toHaveCount(5);
    // Whatever the cards cover, a click reaches it.
    await page.getByRole('link', { name: /View Full Billing Details/ }).click({ timeout: 5_000 });
    await expect(page).toHaveURL(/\/billing$/);
  });
});

test.describe('An idle open tab', () => {
  /** Requests to the API while `during` runs (the analytics summary is not an operation). */
  async function apiRequests(page: Page, during: () => Promise<void>): Promise<string[]> {
    const seen: string[] = [];
    const record = (request: Request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/')) seen.push(`${request.method()} ${url.pathname}`);
    };
    page.on('request', record);
    try {
      await during();
    } finally {
      page.off('request', record);
    }
    return seen;
  }

  for (const path of ['/dashboard', '/entities', '/graph']) {
    test(`spends no operations on ${path}, however long it stays open or however often it is refocused`, async ({
      page,
      request,
    }) => {
      const account = await createAccount(request, 'idle');
      await elsewhere(request, account)('POST', '/api/entities', { name: 'Ada', type: 'person' });
      // The realtime client's pings (every 30 s) show the app's timers really ran.
      let pings = 0;
      page.on('websocket', (socket) =>
        socket.on('framesent', (frame) => {
          if (String(frame.payload).includes('"type":"ping"')) pings += 1;
        }),
      );
      await page.clock.install();
      await openSignedIn(page, account, path);
      await expect(
        page.getByRole('status', { name: 'Realtime connection: Connected' }),
      ).toBeVisible();
      await page.waitForLoadState('networkidle');
      const before = await operationsToday(request, account);

      // Ten minutes open: every timer the app set runs (the old dashboard polled each minute).
      const idle = await apiRequests(page, () => page.clock.runFor('10:00'));
      expect(idle).toEqual([]);
      await expect.poll(() => pings).toBeGreaterThanOrEqual(19);

      // Coming back to the tab: the dashboard reads its summary again (not an
      // operation); nothing else is read.
      const refocused = await apiRequests(page, async () => {
        await page.evaluate(() => {
          document.dispatchEvent(new Event('visibilitychange'));
          window.dispatchEvent(new Event('focus'));
        });
        await page.clock.runFor(1_000);
        await page.waitForLoadState('networkidle');
      });
      expect(refocused.filter((call) => call !== 'GET /api/analytics')).toEqual([]);
      expect(await operationsToday(request, account)).toBe(before);
    });
  }
});
