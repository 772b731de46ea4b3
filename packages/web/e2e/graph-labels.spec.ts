import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { createAccount, openSignedIn, saveScreenshot, type Account } from './support';

/*
 * The Graph view at its default limit (250 nodes), seeded through the API, in
 * Chromium at desktop and phone width: labels are drawn by room (never two on
 * top of each other, more as the view zooms in, always the hovered and the
 * selected node's), and the settled graph is fitted into the canvas. The
 * drawn labels are read from the canvas's probe, the boxes the scene placed
 * and drew.
 */

const NODES = 250;
const TYPES = ['concept', 'person', 'company', 'technology', 'product', 'event', 'place'];
const WORDS = ['Analytical', 'Engine', 'Memory', 'Graph', 'Neural', 'Lovelace', 'Babbage'];
const MORE = ['Turing', 'Vector', 'Index', 'Agent', 'Protocol', 'Context', 'Kernel', 'Notes'];

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
interface ProbedLabel extends Box {
  id: string;
  text: string;
}
interface ScreenNode {
  id: string;
  x: number;
  y: number;
  r: number;
}
type Probe = { labels: ProbedLabel[]; screenNodes(): ScreenNode[] };

async function inPool<T>(items: T[], run: (item: T) => Promise<void>, size = 6): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) await run(items[next++]!);
    }),
  );
}

/** 250 entities with a few hubs and about 370 relations, created through the API. */
async function seedLargeGraph(request: APIRequestContext, account: Account): Promise<string[]> {
  const headers = { Authorization: `Bearer ${account.token}` };
  const ids: string[] = [];
  await inPool(
    Array.from({ length: NODES }, (_, i) => i),
    async (i) => {
      const name = `${WORDS[i % WORDS.length]} ${MORE[(i * 7) % MORE.length]} ${i}`;
      const response = await request.post('/api/entities', {
        headers,
        data: { name, type: TYPES[i % TYPES.length], observations: [] },
      });
      expect(response.status(), await response.text()).toBe(201);
      ids[i] = ((await response.json()) as { id: string }).id;
    },
  );
  // A fixed pseudo-random graph: most nodes link to one earlier node, a few hubs gather more.
  let seed = 3;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pairs: [string, string][] = [];
  for (let i = 1; i < NODES; i++) {
    const earlier =
      random() < 0.3 ? Math.floor(random() * Math.min(i, 12)) : Math.floor(random() * i);
    pairs.push([ids[i]!, ids[earlier]!]);
  }
  for (let i = 0; i < NODES / 2; i++) {
    pairs.push([ids[Math.floor(random() * NODES)]!, ids[Math.floor(random() * NODES)]!]);
  }
  const distinct = new Map(pairs.filter(([a, b]) => a !== b).map((pair) => [pair.join(), pair]));
  await inPool([...distinct.values()], async ([fromEntityId, toEntityId]) => {
    const response = await request.post('/api/relations', {
      headers,
      data: { fromEntityId, toEntityId, type: 'relates_to' },
    });
    expect([201, 409], await response.text()).toContain(response.status());
  });
  return ids;
}

const canvasOf = (page: Page) => page.getByTestId('graph-canvas');

const drawnLabels = (canvas: Locator) =>
  canvas.evaluate((element) => (element as unknown as { graphProbe: Probe }).graphProbe.labels);

const screenNodes = (canvas: Locator) =>
  canvas.evaluate((element) =>
    (element as unknown as { graphProbe: Probe }).graphProbe.screenNodes(),
  );

const overlap = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Pairs of labels drawn on top of each other (one expect per check: Playwright's are not free). */
function expectNoOverlap(labels: ProbedLabel[]): void {
  const overlapping: string[] = [];
  for (let i = 0; i < labels.length; i++) {
    for (let j = i + 1; j < labels.length; j++) {
      if (overlap(labels[i]!, labels[j]!)) {
        overlapping.push(`"${labels[i]!.text}" and "${labels[j]!.text}"`);
      }
    }
  }
  expect(overlapping).toEqual([]);
}

/** Everything in `boxes` lies inside `frame` (half a pixel of rounding allowed). */
function expectInside(boxes: (Box & { what: string })[], frame: Box): void {
  const outside = boxes
    .filter(
      (box) =>
        box.x < frame.x - 0.5 ||
        box.y < frame.y - 0.5 ||
        box.x + box.width > frame.x + frame.width + 0.5 ||
        box.y + box.height > frame.y + frame.height + 0.5,
    )
    .map((box) => box.what);
  expect(outside).toEqual([]);
}

const nodeBoxes = (nodes: ScreenNode[]) =>
  nodes.map((node) => ({
    x: node.x - node.r,
    y: node.y - node.r,
    width: 2 * node.r,
    height: 2 * node.r,
    what: `node ${node.id}`,
  }));

const labelBoxes = (labels: ProbedLabel[]) =>
  labels.map((label) => ({ ...label, what: label.text }));

/** A node whose label is not drawn, lying alone (no other node under the pointer) inside `frame`. */
function unlabelledLoneNode(nodes: ScreenNode[], labels: ProbedLabel[], frame: Box) {
  const labelled = new Set(labels.map((label) => label.id));
  return nodes.find(
    (node) =>
      !labelled.has(node.id) &&
      node.x > frame.x + 20 &&
      node.x < frame.x + frame.width - 60 &&
      node.y > frame.y + 20 &&
      node.y < frame.y + frame.height - 20 &&
      nodes.every(
        (other) =>
          other === node || Math.hypot(other.x - node.x, other.y - node.y) > other.r + node.r + 8,
      ),
  );
}

for (const viewport of [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'mobile', width: 375, height: 812 },
]) {
  test.describe(`Graph labels at ${viewport.width}px`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });
    test.setTimeout(120_000);

    test('250 nodes: labels by room, more when zoomed in, hovered and selected ones always', async ({
      page,
      request,
    }) => {
      const account = await createAccount(request, `graph-labels-${viewport.name}`);
      await seedLargeGraph(request, account);
      await openSignedIn(page, account, '/graph');
      const canvas = canvasOf(page);
      await expect(canvas).toHaveAttribute('data-nodes', String(NODES));
      await expect(canvas).toHaveAttribute('data-layout', 'settled', { timeout: 30_000 });
      await canvas.evaluate((element) =>
        element.scrollIntoView({ block: 'center', behavior: 'instant' }),
      );
      const frame = (await canvas.boundingBox())!;

      // Fitted after the layout: every node lies inside the canvas.
      const nodes = await screenNodes(canvas);
      expect(nodes).toHaveLength(NODES);
      expectInside(nodeBoxes(nodes), frame);

      // Some labels, not all of them, none on top of another, all inside the canvas.
      await expect.poll(async () => (await drawnLabels(canvas)).length).toBeGreaterThan(5);
      const fitted = await drawnLabels(canvas);
      expect(fitted.length).toBeLessThan(NODES);
      expectNoOverlap(fitted);
      expectInside(labelBoxes(fitted), frame);
      await saveScreenshot(page, `graph-labels-${viewport.name}`);

      // Hovering a node whose label did not fit shows its label.
      const lone = unlabelledLoneNode(nodes, fitted, frame);
      expect(lone, 'an unlabelled node to hover').toBeDefined();
      await page.mouse.move(lone!.x, lone!.y);
      await expect
        .poll(async () => (await drawnLabels(canvas)).some((label) => label.id === lone!.id))
        .toBe(true);
      expectNoOverlap(await drawnLabels(canvas));

      // Clicking selects it; its label stays after the pointer leaves the canvas.
      await page.mouse.click(lone!.x, lone!.y);
      const panel = page.getByRole('region', { name: 'Selected Node' });
      await expect(panel.getByRole('link')).toBeVisible();
      await page.mouse.move(frame.x + frame.width / 2, frame.y - 40);
      await expect
        .poll(async () => (await drawnLabels(canvas)).some((label) => label.id === lone!.id))
        .toBe(true);
      await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
      await saveScreenshot(page, `graph-labels-selected-${viewport.name}`);

      // Zooming in leaves room for more labels, still never two on top of each other.
      await canvas.evaluate((element) =>
        element.scrollIntoView({ block: 'center', behavior: 'instant' }),
      );
      const labelledShare = async () => {
        const frame = (await canvas.boundingBox())!;
        const inView = (await screenNodes(canvas)).filter(
          (node) =>
            node.x >= frame.x &&
            node.x <= frame.x + frame.width &&
            node.y >= frame.y &&
            node.y <= frame.y + frame.height,
        ).length;
        return (await drawnLabels(canvas)).length / inView;
      };
      const fittedShare = await labelledShare();
      for (let i = 0; i < 3; i++) await page.getByRole('button', { name: 'Zoom in' }).click();
      await expect.poll(labelledShare).toBeGreaterThan(fittedShare * 1.5);
      const zoomed = await drawnLabels(canvas);
      expectNoOverlap(zoomed);
      const zoomedFrame = (await canvas.boundingBox())!;
      expectInside(labelBoxes(zoomed), zoomedFrame);
      await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
      await saveScreenshot(page, `graph-labels-zoomed-${viewport.name}`);

      // Reset zoom fits the whole graph again.
      await page.getByRole('button', { name: 'Reset zoom' }).click();
      await canvas.evaluate((element) =>
        element.scrollIntoView({ block: 'center', behavior: 'instant' }),
      );
      const refitted = (await canvas.boundingBox())!;
      expectInside(nodeBoxes(await screenNodes(canvas)), refitted);
    });

    test('a ?limit= the selector does not offer is named in a quiet notice', async ({
      page,
      request,
    }) => {
      const account = await createAccount(request, `graph-limit-${viewport.name}`);
      await openSignedIn(page, account, '/graph?limit=99999');
      const notice = page.getByTestId('graph-param-notice');
      await expect(notice).toHaveText(
        'Limit 99999 is not one of the options (100, 250, 500); showing 250.',
      );
      await expect(page.getByLabel('Limit', { exact: true })).toHaveValue('250');
      expect(
        await page.getByLabel('Limit', { exact: true }).locator('option').allTextContents(),
      ).toEqual(['100', '250', '500']);
      await saveScreenshot(page, `graph-limit-notice-${viewport.name}`);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(viewport.width);

      // Applying a value that is offered clears the notice.
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect(page).toHaveURL('/graph?limit=250&depth=2');
      await expect(notice).toBeHidden();

      // Offered values say nothing.
      await page.goto('/graph?limit=100&depth=3');
      await expect(page.getByLabel('Limit', { exact: true })).toHaveValue('100');
      await expect(notice).toBeHidden();
    });
  });
}
