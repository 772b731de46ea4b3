import { expect, test, type Page } from '@playwright/test';
import { createAccount, openSignedIn, saveScreenshot, type Account } from './support';

/**
 * No screen is wider than a phone: at 375 px every page fits its viewport
 * (wide tables and code scroll inside their own boxes, never the page).
 */

const PHONE = { width: 375, height: 812 };

/** How far the page reaches past the viewport's right edge, and the widest offenders. */
async function overflowOf(page: Page) {
  return page.evaluate(() => {
    const root = document.documentElement;
    const width = root.clientWidth;
    const offenders = Array.from(document.body.querySelectorAll<HTMLElement>('*'))
      .filter((element) => element.getBoundingClientRect().right > width + 0.5)
      // Inside a scroller of its own the element does not widen the page.
      .filter((element) => {
        for (let parent = element.parentElement; parent; parent = parent.parentElement) {
          const overflowX = getComputedStyle(parent).overflowX;
          if (overflowX === 'auto' || overflowX === 'scroll' || overflowX === 'hidden') {
            return parent.getBoundingClientRect().right > width + 0.5;
          }
        }
        return true;
      })
      // The innermost ones: what is too wide itself, not every box around it.
      .filter(
        (element) =>
          ![...element.children].some((child) => child.getBoundingClientRect().right > width + 0.5),
      )
      .slice(0, 5)
      .map((element) => {
        const id = element.getAttribute('data-testid') ?? element.className.toString();
        const text = (element.textContent ?? '').trim().slice(0, 40);
        return `${element.tagName.toLowerCase()}.${id.slice(0, 60)} "${text}" (${Math.round(element.getBoundingClientRect().right)}px)`;
      });
    return { scrollWidth: root.scrollWidth, clientWidth: width, offenders };
  });
}

async function expectNoOverflow(page: Page, name: string) {
  // Settled: fonts and late layout (charts, lists) in place.
  await page.waitForLoadState('networkidle').catch(() => undefined);
  await saveScreenshot(page, `overflow-${name}`);
  const { scrollWidth, clientWidth, offenders } = await overflowOf(page);
  // Soft: every screen is checked, and each one too wide is named.
  expect
    .soft(
      scrollWidth,
      `${name} is ${scrollWidth - clientWidth}px wider than the phone: ${offenders.join(', ')}`,
    )
    .toBeLessThanOrEqual(clientWidth);
}

const bearer = (account: Account) => ({ Authorization: `Bearer ${account.token}` });

test.describe('at 375 px no screen scrolls sideways', () => {
  test.use({ viewport: PHONE });

  test('public screens', async ({ page }) => {
    for (const [name, path, heading] of [
      ['landing', '/', null],
      ['pricing', '/pricing', 'Frequently asked questions'],
      ['login', '/login', null],
      ['signup', '/signup?plan=pro&billing=annual', null],
    ] as const) {
      await test.step(name, async () => {
        await page.goto(path);
        if (heading) await expect(page.getByRole('heading', { name: heading })).toBeVisible();
        else await expect(page.locator('main, form').first()).toBeVisible();
        await expectNoOverflow(page, name);
      });
    }
  });

  test('signed-in screens, with data in them', async ({ page, request }) => {
    test.setTimeout(90_000);
    const account = await createAccount(request, 'overflow');
    const created: { id: string }[] = [];
    for (const entity of [
      {
        name: 'An entity with a rather long name that could push a card wider',
        type: 'technology',
        observations: ['https://example.com/a/very/long/address/without/any/spaces/in/it/at/all'],
        metadata: { source: 'overflow-check', tags: ['one', 'two'] },
      },
      { name: 'Ada Lovelace', type: 'person', observations: ['Wrote the first program'] },
    ]) {
      const response = await request.post('/api/entities', {
        headers: bearer(account),
        data: entity,
      });
      expect(response.status(), await response.text()).toBe(201);
      created.push((await response.json()) as { id: string });
    }
    const relation = await request.post('/api/relations', {
      headers: bearer(account),
      data: { fromEntityId: created[1]!.id, toEntityId: created[0]!.id, type: 'based_on' },
    });
    expect(relation.status(), await relation.text()).toBe(201);
    const key = await request.post('/api/keys', {
      headers: bearer(account),
      data: { name: 'A key for an agent with a long descriptive name', permissions: [] },
    });
    expect(key.status(), await key.text()).toBe(201);

    await openSignedIn(page, account, '/dashboard');
    for (const [name, path, heading] of [
      ['dashboard', '/dashboard', 'Knowledge Graph Dashboard'],
      ['entities', '/entities', null],
      ['relations', '/relations', null],
      ['graph', '/graph', 'Knowledge Graph Visualization'],
      ['entity-detail', `/entities/${created[0]!.id}`, null],
      ['search', '/search?q=Ada', null],
      ['api-keys', '/api-keys', 'API Keys'],
      ['billing', '/billing', 'Billing & Subscription'],
      ['settings', '/settings', null],
    ] as const) {
      await test.step(name, async () => {
        await page.goto(path);
        await expect(
          heading
            ? page.getByRole('heading', { level: 1, name: heading })
            : page.getByRole('heading', { level: 1 }).first(),
        ).toBeVisible();
        await expectNoOverflow(page, name);
      });
    }

    // The billing screen's usage table fits whole: no column cut off behind its scroller.
    await page.goto('/billing');
    const details = page.getByRole('region', { name: 'Operation details' });
    await expect(details.getByTestId('usage-detail').first()).toBeVisible();
    const table = details.locator('table');
    const fits = await table.evaluate(
      (element) => element.scrollWidth <= (element.parentElement?.clientWidth ?? 0),
    );
    expect(fits).toBe(true);
    const requests = await details.getByRole('columnheader', { name: 'Requests' }).boundingBox();
    expect(requests!.x + requests!.width).toBeLessThanOrEqual(PHONE.width);
  });
});
