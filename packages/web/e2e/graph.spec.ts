import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { createAccount, openSignedIn, saveScreenshot, type Account } from './support';

/*
 * The Graph view (docs/product.md: The signed-in app, States, Failures, Numbers) on a seeded account, in Chromium,
 * against the real server: counts drawn, selectors in the address, clicking a
 * node, dragging, hover, live edges, the empty and failed states.
 */

interface Seeded {
  ids: Record<string, string>;
}

async function post(
  request: APIRequestContext,
  account: Account,
  path: string,
  data: unknown,
): Promise<{ id: string }> {
  const response = await request.post(path, {
    headers: { Authorization: `Bearer ${account.token}` },
    data,
  });
  expect(response.status(), `POST ${path}: ${await response.text()}`).toBe(201);
  return (await response.json()) as { id: string };
}

const ENTITIES: [string, string, number][] = [
  ['Ada Lovelace', 'person', 4],
  ['Charles Babbage', 'person', 2],
  ['Analytical Engine', 'technology', 3],
  ['Difference Engine', 'technology', 0],
  ['Notes on the Analytical Engine', 'concept', 1],
  ['Royal Society', 'company', 0],
  ['Bernoulli numbers', 'concept', 0],
  ['London', 'place', 1],
];

const RELATIONS: [string, string, string][] = [
  ['Ada Lovelace', 'Analytical Engine', 'uses'],
  ['Charles Babbage', 'Analytical Engine', 'implements'],
  ['Charles Babbage', 'Difference Engine', 'implements'],
  ['Ada Lovelace', 'Notes on the Analytical Engine', 'part_of'],
  ['Notes on the Analytical Engine', 'Bernoulli numbers', 'relates_to'],
  ['Charles Babbage', 'Royal Society', 'part_of'],
  ['Ada Lovelace', 'Charles Babbage', 'relates_to'],
];

async function seedGraph(request: APIRequestContext, account: Account): Promise<Seeded> {
  const ids: Record<string, string> = {};
  for (const [name, type, observations] of ENTITIES) {
    const created = await post(request, account, '/api/entities', {
      name,
      type,
      observations: Array.from({ length: observations }, (_, i) => `${name} fact ${i + 1}`),
    });
    ids[name] = created.id;
  }
  for (const [from, to, type] of RELATIONS) {
    await post(request, account, '/api/relations', {
      fromEntityId: ids[from],
      toEntityId: ids[to],
      type,
    });
  }
  return { ids };
}

const canvasOf = (page: Page) => page.getByTestId('graph-canvas');
const stat = (page: Page, name: 'nodes' | 'edges' | 'types') =>
  page.getByTestId(`graph-stat-${name}`);

async function waitForSettled(canvas: Locator): Promise<void> {
  await expect(canvas).toHaveAttribute('data-layout', 'settled', { timeout: 20_000 });
}

/**
 * Where the canvas draws node `id` (client coordinates), from its probe; the
 * canvas is scrolled into the middle of the viewport first, so a click there lands.
 */
async function nodePosition(canvas: Locator, id: string): Promise<{ x: number; y: number }> {
  await canvas.evaluate((element) =>
    element.scrollIntoView({ block: 'center', behavior: 'instant' }),
  );
  const position = await canvas.evaluate(
    (element, nodeId) =>
      (
        element as HTMLCanvasElement & {
          graphProbe?: { screenPositionOf(id: string): { x: number; y: number } | null };
        }
      ).graphProbe?.screenPositionOf(nodeId) ?? null,
    id,
  );
  if (!position) throw new Error(`node ${id} is not drawn`);
  return position;
}

test.describe('Graph view', () => {
  test('draws the seeded graph with its counts; clicking a node fills the panel', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'graph');
    const { ids } = await seedGraph(request, account);
    await openSignedIn(page, account, '/graph');
    await expect(
      page.getByRole('heading', { level: 1, name: 'Knowledge Graph Visualization' }),
    ).toBeVisible();

    const canvas = canvasOf(page);
    await expect(canvas).toHaveAttribute('data-nodes', '8');
    await expect(canvas).toHaveAttribute('data-edges', '7');
    await expect(stat(page, 'nodes')).toHaveText('8');
    await expect(stat(page, 'edges')).toHaveText('7');
    await expect(stat(page, 'types')).toHaveText('5');
    await expect(canvas).toHaveJSProperty('height', 600);
    const box = await canvas.boundingBox();
    expect(box?.height).toBe(600);

    const legend = page.getByRole('region', { name: 'Node Types' });
    for (const type of ['person', 'technology', 'concept', 'company', 'place']) {
      await expect(legend.getByText(type, { exact: true })).toBeVisible();
    }

    await waitForSettled(canvas);
    const panel = page.getByRole('region', { name: 'Selected Node' });
    await expect(panel).toContainText('Click a node to see its details.');
    const ada = await nodePosition(canvas, ids['Ada Lovelace']!);
    await page.mouse.move(ada.x, ada.y);
    await saveScreenshot(page, 'graph-view-hover-desktop');
    await page.mouse.click(ada.x, ada.y);
    const link = panel.getByRole('link', { name: 'Ada Lovelace' });
    await expect(link).toHaveAttribute('href', `/entities/${ids['Ada Lovelace']}`);
    await expect(panel).toContainText('person');
    await expect(panel).toContainText('Observations4');
    await expect(panel).toContainText(ids['Ada Lovelace']!);
    await saveScreenshot(page, 'graph-view-clicked-desktop');

    // Clicking empty canvas clears the selection.
    const canvasBox = (await canvas.boundingBox())!;
    await page.mouse.click(canvasBox.x + 8, canvasBox.y + 8);
    await expect(panel).toContainText('Click a node to see its details.');

    await page.mouse.click(ada.x, ada.y);
    await link.click();
    await expect(page).toHaveURL(`/entities/${ids['Ada Lovelace']}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Ada Lovelace' })).toBeVisible();
  });

  test('Limit and Depth go into the address on Apply and survive reload and Back', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'graph-params');
    await seedGraph(request, account);
    await openSignedIn(page, account, '/graph');
    const limit = page.getByLabel('Limit');
    const depth = page.getByLabel('Depth');
    await expect(limit).toHaveValue('250');
    await expect(depth).toHaveValue('2');
    expect(await limit.locator('option').allTextContents()).toEqual(['100', '250', '500']);
    expect(await depth.locator('option').allTextContents()).toEqual(['1', '2', '3', '4', '5']);

    await limit.selectOption('100');
    await depth.selectOption('4');
    const answer = page.waitForResponse((response) =>
      response.url().includes('/api/relations/graph/data?limit=100&depth=4'),
    );
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect(page).toHaveURL('/graph?limit=100&depth=4');
    expect((await answer).status()).toBe(200);
    await expect(stat(page, 'nodes')).toHaveText('8');

    await page.reload();
    await expect(page.getByLabel('Limit')).toHaveValue('100');
    await expect(page.getByLabel('Depth')).toHaveValue('4');

    await page.goBack();
    await expect(page).toHaveURL('/graph');
    await expect(page.getByLabel('Limit')).toHaveValue('250');
    await expect(page.getByLabel('Depth')).toHaveValue('2');

    // Values not offered fall back to the defaults, and a quiet notice says so.
    await page.goto('/graph?limit=99999&depth=0');
    await expect(page.getByLabel('Limit')).toHaveValue('250');
    await expect(page.getByLabel('Depth')).toHaveValue('2');
    await expect(stat(page, 'nodes')).toHaveText('8');
    await expect(page.getByTestId('graph-param-notice')).toHaveText(
      'Limit 99999 is not one of the options (100, 250, 500); showing 250. ' +
        'Depth 0 is not one of the options (1, 2, 3, 4, 5); using 2.',
    );
  });

  test('a node can be dragged, the view zoomed and reset', async ({ page, request }) => {
    const account = await createAccount(request, 'graph-drag');
    const { ids } = await seedGraph(request, account);
    await openSignedIn(page, account, '/graph');
    const canvas = canvasOf(page);
    await waitForSettled(canvas);

    const id = ids['Royal Society']!;
    const start = await nodePosition(canvas, id);
    const box = (await canvas.boundingBox())!;
    const target = { x: box.x + 120, y: box.y + 120 };
    await page.mouse.move(start.x, start.y);
    await page.mouse.down();
    for (let step = 1; step <= 10; step++) {
      await page.mouse.move(
        start.x + ((target.x - start.x) * step) / 10,
        start.y + ((target.y - start.y) * step) / 10,
      );
    }
    const held = await nodePosition(canvas, id);
    expect(Math.hypot(held.x - target.x, held.y - target.y)).toBeLessThan(3);
    await page.mouse.up();
    // A drag is not a click: nothing is selected.
    await expect(page.getByRole('region', { name: 'Selected Node' })).toContainText(
      'Click a node to see its details.',
    );
    await waitForSettled(canvas);

    const zoomOf = () =>
      canvas.evaluate(
        (element) =>
          (element as HTMLCanvasElement & { graphProbe?: { zoom: number } }).graphProbe!.zoom,
      );
    const fitted = await zoomOf();
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await expect.poll(zoomOf).toBeGreaterThan(fitted);
    // The wheel zooms out, never past 0.1x.
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let i = 0; i < 30; i++) await page.mouse.wheel(0, 400);
    await expect.poll(zoomOf).toBeCloseTo(0.1, 5);
    await page.getByRole('button', { name: 'Reset zoom' }).click();
    await expect.poll(zoomOf).toBeGreaterThan(0.1);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let i = 0; i < 40; i++) await page.mouse.wheel(0, -400);
    await expect.poll(zoomOf).toBeCloseTo(4, 5);
  });

  test('a relation created elsewhere appears as an edge without a new layout', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'graph-live');
    const { ids } = await seedGraph(request, account);
    await openSignedIn(page, account, '/graph');
    await expect(
      page.getByRole('status', { name: 'Realtime connection: Connected' }),
    ).toBeVisible();
    const canvas = canvasOf(page);
    await waitForSettled(canvas);
    await expect(stat(page, 'edges')).toHaveText('7');

    await post(request, account, '/api/relations', {
      fromEntityId: ids['London'],
      toEntityId: ids['Royal Society'],
      type: 'contains',
    });
    await expect(stat(page, 'edges')).toHaveText('8');
    await expect(canvas).toHaveAttribute('data-edges', '8');
    await expect(stat(page, 'nodes')).toHaveText('8');
    await waitForSettled(canvas);
    // Warm start: the second layout took a fraction of the first one's ticks.
    const layouts = await canvas.evaluate(
      (element) =>
        (
          element as HTMLCanvasElement & {
            graphProbe?: { layouts: { receivedAt: number; settledAt: number | null }[] };
          }
        ).graphProbe!.layouts,
    );
    expect(layouts.length).toBeGreaterThanOrEqual(2);
    const first = layouts[0]!;
    const last = layouts.at(-1)!;
    expect(last.settledAt! - last.receivedAt).toBeLessThan(first.settledAt! - first.receivedAt);
  });

  test('under prefers-reduced-motion the layout settles without animation', async ({
    page,
    request,
  }) => {
    await page.emulateMedia({ reducedMotion: 'reduce' });
    const account = await createAccount(request, 'graph-still');
    await seedGraph(request, account);
    await openSignedIn(page, account, '/graph');
    const canvas = canvasOf(page);
    await waitForSettled(canvas);
    const frames = await canvas.evaluate(
      (element) =>
        (element as HTMLCanvasElement & { graphProbe?: { layouts: { frames: number }[] } })
          .graphProbe!.layouts[0]!.frames,
    );
    // One frame: the finished layout, never the moves on the way there.
    expect(frames).toBe(1);

    await page.emulateMedia({ reducedMotion: 'no-preference' });
    await page.reload();
    await waitForSettled(canvasOf(page));
    const animated = await canvasOf(page).evaluate(
      (element) =>
        (element as HTMLCanvasElement & { graphProbe?: { layouts: { frames: number }[] } })
          .graphProbe!.layouts[0]!.frames,
    );
    expect(animated).toBeGreaterThan(10);
  });

  test('empty, loading and failed states', async ({ page, request }) => {
    const account = await createAccount(request, 'graph-empty');
    await openSignedIn(page, account, '/graph');
    await expect(page.getByText('No graph data to display')).toBeVisible();
    await expect(stat(page, 'nodes')).toHaveText('0');
    await saveScreenshot(page, 'graph-view-empty-desktop');

    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(
      (url) => url.pathname === '/api/relations/graph/data',
      async (route) => {
        await held;
        await route.fulfill({
          status: 500,
          contentType: 'application/json',
          body: JSON.stringify({ error: 'Boom', code: 'INTERNAL' }),
        });
      },
    );
    await page.reload();
    await expect(page.getByText('Loading graph data...')).toBeVisible();
    await saveScreenshot(page, 'graph-view-loading-desktop');
    release();
    // Two retries of a 5xx first (about 3 s), then the red alert (docs/product.md, Failures).
    const alert = page.getByRole('alert');
    await expect(alert).toContainText('Failed to load graph data', { timeout: 15_000 });
    await expect(alert).toHaveCSS('color', /rgb\(185, 28, 28\)|rgb\(252, 165, 165\)/);
    await saveScreenshot(page, 'graph-view-error-desktop');
  });

  for (const viewport of [
    { name: 'desktop', width: 1280, height: 900 },
    { name: 'mobile', width: 375, height: 812 },
  ]) {
    test(`screenshot at ${viewport.width}px`, async ({ page, request }) => {
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      const account = await createAccount(request, `graph-shot-${viewport.name}`);
      const { ids } = await seedGraph(request, account);
      await openSignedIn(page, account, '/graph');
      const canvas = canvasOf(page);
      await waitForSettled(canvas);
      await saveScreenshot(page, `graph-view-${viewport.name}`);
      const position = await nodePosition(canvas, ids['Charles Babbage']!);
      await page.mouse.click(position.x, position.y);
      await expect(
        page.getByRole('region', { name: 'Selected Node' }).getByRole('link'),
      ).toHaveText('Charles Babbage');
      // Full-page shots are taken from the top, so the sticky header sits where it belongs.
      await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
      await saveScreenshot(page, `graph-view-selected-${viewport.name}`);
      await page.emulateMedia({ colorScheme: 'dark' });
      // Let colour transitions finish before the picture.
      await page.waitForTimeout(500);
      await saveScreenshot(page, `graph-view-dark-${viewport.name}`);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(viewport.width);
    });
  }
});
