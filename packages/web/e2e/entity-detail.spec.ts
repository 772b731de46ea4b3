import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { createAccount, openSignedIn, saveScreenshot, type Account } from './support';

/*
 * The Entity detail page (docs/product.md: The signed-in app, States, Failures, Numbers) on a seeded
 * account, in Chromium, against the real server.
 */

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

interface Seeded {
  ada: string;
  engine: string;
  babbage: string;
  notes: string;
}

async function seed(request: APIRequestContext, account: Account): Promise<Seeded> {
  const ada = await post(request, account, '/api/entities', {
    name: 'Ada Lovelace',
    type: 'person',
    metadata: { born: 1815 },
    observations: [
      'Wrote the first published algorithm for a machine',
      { content: 'Corresponded with Charles Babbage for years', metadata: { source: 'letters' } },
      'Translated Menabrea’s article on the Analytical Engine and added her own notes',
    ],
  });
  const engine = await post(request, account, '/api/entities', {
    name: 'Analytical Engine',
    type: 'technology',
    observations: ['A proposed general-purpose mechanical computer'],
  });
  const babbage = await post(request, account, '/api/entities', {
    name: 'Charles Babbage',
    type: 'person',
  });
  const notes = await post(request, account, '/api/entities', {
    name: 'Notes on the Analytical Engine',
    type: 'concept',
  });
  const relate = (from: string, to: string, type: string) =>
    post(request, account, '/api/relations', { fromEntityId: from, toEntityId: to, type });
  await relate(ada.id, engine.id, 'depends_on');
  await relate(babbage.id, ada.id, 'relates_to');
  await relate(ada.id, notes.id, 'part_of');
  // Between two neighbours: drawn in the mini graph, not in Ada's relationships.
  await relate(babbage.id, engine.id, 'implements');
  return { ada: ada.id, engine: engine.id, babbage: babbage.id, notes: notes.id };
}

const canvasOf = (page: Page) => page.getByTestId('graph-canvas');

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

const relationships = (page: Page) => page.getByTestId('relationship');

test.describe('Entity detail', () => {
  test('shows the entity, its neighbourhood, relationships and observations', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'detail');
    const ids = await seed(request, account);
    const graphCall = page.waitForResponse(
      (response) =>
        response
          .url()
          .endsWith(`/api/relations/graph/data?rootEntityId=${ids.ada}&depth=1&limit=50`) &&
        response.status() === 200,
    );
    const relationsCall = page.waitForResponse((response) =>
      response.url().endsWith(`/api/relations?entityId=${ids.ada}&limit=100`),
    );
    await openSignedIn(page, account, `/entities/${ids.ada}`);
    await graphCall;
    await relationsCall;

    await expect(page.getByRole('heading', { level: 1, name: 'Ada Lovelace' })).toBeVisible();
    await expect(page.getByText('3 observations')).toBeVisible();
    await expect(page.getByText(/^Created [A-Z][a-z]{2} \d{1,2}, \d{4}$/)).toBeVisible();
    // Who made it (docs/history.md): the signed-in person who seeded it.
    await expect(page.getByTestId('entity-authors')).toContainText('Created by Ada Lovelace');

    const canvas = canvasOf(page);
    await expect(canvas).toHaveAttribute('data-nodes', '4');
    await expect(canvas).toHaveAttribute('data-edges', '4');
    expect((await canvas.boundingBox())?.height).toBe(400);
    await expect(page.getByRole('heading', { name: 'Connected Entities' })).toBeVisible();

    await expect(relationships(page)).toHaveCount(3);
    const toEngine = relationships(page).filter({
      has: page.getByText('Analytical Engine', { exact: true }),
    });
    await expect(toEngine).toContainText('Depends on');
    await expect(toEngine).toContainText('Outgoing');
    await expect(toEngine).toContainText('technology');
    const fromBabbage = relationships(page).filter({ hasText: 'Charles Babbage' });
    await expect(fromBabbage).toContainText('Relates to');
    await expect(fromBabbage).toContainText('Incoming');

    const observations = page.getByRole('list', { name: 'Observations' }).getByRole('listitem');
    await expect(observations).toHaveCount(3);
    await expect(observations.nth(1)).toContainText('Corresponded with Charles Babbage');
    await expect(observations.nth(1)).toContainText('Has metadata');
    await expect(observations.nth(0)).not.toContainText('Has metadata');

    await waitForSettled(canvas);
    // The entity sits at the centre of its graph.
    const centre = await nodePosition(canvas, ids.ada);
    const box = (await canvas.boundingBox())!;
    expect(Math.abs(centre.x - (box.x + box.width / 2))).toBeLessThan(box.width / 4);
    await saveScreenshot(page, 'entity-page-loaded-desktop');

    // A relationship row fills the Selected Entity panel; View Entity opens it.
    const panel = page.getByRole('region', { name: 'Selected Entity' });
    await fromBabbage.getByRole('button', { pressed: false }).click();
    await expect(panel).toContainText('Charles Babbage');
    await expect(panel).toContainText(ids.babbage);
    await panel.getByRole('button', { name: 'View Entity' }).click();
    await expect(page).toHaveURL(`/entities/${ids.babbage}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Charles Babbage' })).toBeVisible();
    await expect(page.getByText('No observations found')).toBeVisible();
  });

  test('moves between entities through the mini graph and the relationships list', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'detail-nav');
    const ids = await seed(request, account);
    await openSignedIn(page, account, `/entities/${ids.ada}`);
    const canvas = canvasOf(page);
    await waitForSettled(canvas);

    const engine = await nodePosition(canvas, ids.engine);
    await page.mouse.click(engine.x, engine.y);
    await expect(page).toHaveURL(`/entities/${ids.engine}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Analytical Engine' })).toBeVisible();
    await expect(canvasOf(page)).toHaveAttribute('data-nodes', '3');

    await page.getByRole('link', { name: 'Go to Ada Lovelace' }).click();
    await expect(page).toHaveURL(`/entities/${ids.ada}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Ada Lovelace' })).toBeVisible();

    await page.goBack();
    await expect(page).toHaveURL(`/entities/${ids.engine}`);
    await page.getByRole('link', { name: 'Back' }).click();
    await expect(page).toHaveURL('/entities');
  });

  test('a new relation shows live in the mini graph and the list', async ({ page, request }) => {
    const account = await createAccount(request, 'detail-live');
    const ids = await seed(request, account);
    const extra = await post(request, account, '/api/entities', {
      name: 'Mary Somerville',
      type: 'person',
    });
    await openSignedIn(page, account, `/entities/${ids.ada}`);
    await expect(
      page.getByRole('status', { name: 'Realtime connection: Connected' }),
    ).toBeVisible();
    await waitForSettled(canvasOf(page));
    await expect(relationships(page)).toHaveCount(3);

    await post(request, account, '/api/relations', {
      fromEntityId: extra.id,
      toEntityId: ids.ada,
      type: 'influences',
    });
    await expect(relationships(page)).toHaveCount(4);
    await expect(relationships(page).filter({ hasText: 'Mary Somerville' })).toContainText(
      'Influences',
    );
    await expect(canvasOf(page)).toHaveAttribute('data-nodes', '5');
    await expect(canvasOf(page)).toHaveAttribute('data-edges', '5');
  });

  test('Entity not found on a 404, for a missing id and for another account’s entity', async ({
    page,
    request,
  }) => {
    const owner = await createAccount(request, 'detail-owner');
    const ids = await seed(request, owner);
    const stranger = await createAccount(request, 'detail-stranger');

    await openSignedIn(page, stranger, `/entities/${ids.ada}`);
    await expect(page.getByRole('alert')).toHaveText('Entity not found');
    await expect(page.getByText('Ada Lovelace')).toHaveCount(0);

    await page.goto('/entities/00000000-0000-4000-8000-000000000000');
    await expect(page.getByRole('alert')).toHaveText('Entity not found');
    await saveScreenshot(page, 'entity-page-not-found-desktop');
    await page.getByRole('link', { name: 'Back' }).click();
    await expect(page).toHaveURL('/entities');

    // /entities/ with no id is the entity list.
    await page.goto('/entities/');
    await expect(page).toHaveURL(/\/entities\/?$/);
  });

  test('Failed to load entity data on other failures', async ({ page, request }) => {
    const account = await createAccount(request, 'detail-fail');
    const ids = await seed(request, account);
    await page.route(
      (url) => url.pathname === `/api/entities/${ids.ada}`,
      (route) =>
        route.fulfill({
          status: 500,
          contentType: 'application/json',
          body: JSON.stringify({ error: 'Boom', code: 'INTERNAL' }),
        }),
    );
    await openSignedIn(page, account, `/entities/${ids.ada}`);
    await expect(page.getByText('Loading entity data...')).toBeVisible();
    await expect(page.getByRole('alert')).toHaveText('Failed to load entity data', {
      timeout: 15_000,
    });
    await expect(page.getByRole('link', { name: 'Back' })).toBeVisible();
  });

  test('the fallback graph of the entity and its first 10 observations when the graph call fails', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'detail-fallback');
    const many = await post(request, account, '/api/entities', {
      name: 'Field notebook',
      type: 'product',
      observations: Array.from(
        { length: 12 },
        (_, i) => `Entry ${i + 1}: a fairly long observation that the label has to cut short`,
      ),
    });
    await page.route(
      (url) => url.pathname === '/api/relations/graph/data',
      (route) =>
        route.fulfill({
          status: 500,
          contentType: 'application/json',
          body: JSON.stringify({ error: 'Boom', code: 'INTERNAL' }),
        }),
    );
    await page.route(
      (url) => url.pathname === '/api/relations',
      (route) =>
        route.fulfill({
          status: 500,
          contentType: 'application/json',
          body: JSON.stringify({ error: 'Boom', code: 'INTERNAL' }),
        }),
    );
    await openSignedIn(page, account, `/entities/${many.id}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Field notebook' })).toBeVisible();
    const canvas = canvasOf(page);
    await expect(canvas).toHaveAttribute('data-nodes', '11', { timeout: 15_000 });
    await expect(canvas).toHaveAttribute('data-edges', '10');
    await expect(page.getByRole('list', { name: 'Node Types' })).toContainText('observation10');
    // If the relations call fails, the list is empty (docs/product.md, States).
    await expect(page.getByText('No relationships found')).toBeVisible({ timeout: 15_000 });
    await waitForSettled(canvas);
    await saveScreenshot(page, 'entity-page-fallback-desktop');
  });

  test('empty states', async ({ page, request }) => {
    const account = await createAccount(request, 'detail-empty');
    const lone = await post(request, account, '/api/entities', { name: 'Lonely', type: 'event' });
    await openSignedIn(page, account, `/entities/${lone.id}`);
    await expect(page.getByText('No connected entities found')).toBeVisible();
    await expect(page.getByText('No relationships found')).toBeVisible();
    await expect(page.getByText('No observations found')).toBeVisible();
    await saveScreenshot(page, 'entity-page-empty-desktop');
  });

  for (const viewport of [
    { name: 'desktop', width: 1280, height: 900 },
    { name: 'mobile', width: 375, height: 812 },
  ]) {
    test(`screenshot at ${viewport.width}px`, async ({ page, request }) => {
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      const account = await createAccount(request, `detail-shot-${viewport.name}`);
      const ids = await seed(request, account);
      await openSignedIn(page, account, `/entities/${ids.ada}`);
      await waitForSettled(canvasOf(page));
      await relationships(page)
        .filter({ has: page.getByText('Analytical Engine', { exact: true }) })
        .getByRole('button', { pressed: false })
        .click();
      // Full-page shots are taken from the top, so the sticky header sits where it belongs.
      await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
      await saveScreenshot(page, `entity-page-${viewport.name}`);
      await page.emulateMedia({ colorScheme: 'dark' });
      // Let colour transitions finish before the picture.
      await page.waitForTimeout(500);
      await saveScreenshot(page, `entity-page-dark-${viewport.name}`);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(viewport.width);
    });
  }
});
