import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { PrivateServer } from './private-server';
import { choose, createAccount, openSignedIn, saveScreenshot, type Account } from './support';

interface ApiEntity {
  id: string;
  name: string;
  type: string;
  metadata: Record<string, unknown>;
  observations: { id: string; content: string; createdAt: string }[];
  createdAt: string;
}

/** Calls the REST API as `account` (its session token), failing the test on an error. */
function api(request: APIRequestContext, account: Account, origin = '') {
  return async <T = ApiEntity>(method: string, path: string, data?: unknown): Promise<T> => {
    const response = await request.fetch(`${origin}${path}`, {
      method,
      data,
      headers: { Authorization: `Bearer ${account.token}` },
    });
    expect(response.ok(), `${method} ${path}: ${response.status()}`).toBe(true);
    return (await response.json()) as T;
  };
}

function card(page: Page, name: string) {
  return page.getByRole('article', { name, exact: true });
}

async function cardAction(page: Page, name: string, action: string) {
  await card(page, name)
    .getByRole('button', { name: `Actions for ${name}` })
    .click();
  await page.getByRole('menuitem', { name: action }).click();
}

test.describe('Entity Management (/entities)', () => {
  test('create with a custom type, metadata and two observations; view; edit; search; filter; delete', async ({
    page,
    request,
  }) => {
    test.setTimeout(90_000);
    const account = await createAccount(request, 'entities-crud');
    const call = api(request, account);
    await openSignedIn(page, account, '/entities');
    await expect(page.getByRole('heading', { level: 1, name: 'Entity Management' })).toBeVisible();
    await expect(page.getByText('No entities found')).toBeVisible();
    await expect(page.getByText('Create your first entity to get started')).toBeVisible();

    // ── create ──────────────────────────────────────────────────────────────
    await page.getByRole('button', { name: 'Create Entity' }).first().click();
    const create = page.getByRole('dialog', { name: 'Create Entity' });
    await expect(create.getByRole('textbox', { name: 'Observation 1' })).toHaveValue('');
    // One box: no remove button yet.
    await expect(create.getByRole('button', { name: /Remove observation/ })).toHaveCount(0);

    const submit = create.getByRole('button', { name: 'Create Entity' });
    await submit.click();
    await expect(create.getByText('Name is required')).toBeVisible();
    await create.getByLabel('Name').fill('   ');
    await submit.click();
    await expect(create.getByText('Name is required')).toBeVisible();
    await create.getByLabel('Name').fill('  Ada Lovelace  ');
    await submit.click();
    await expect(create.getByText('Type is required')).toBeVisible();

    await choose(page, create, 'Type', 'Custom Type...');
    await expect(create.getByRole('textbox', { name: 'Custom type' })).toBeFocused();
    await create.getByRole('textbox', { name: 'Custom type' }).fill('mathematician');
    await create.getByLabel('Metadata (JSON)').fill('{"born": 1815, "field": "mathematics"');
    await submit.click();
    await expect(create.getByText('Invalid JSON format')).toBeVisible();
    await create.getByLabel('Metadata (JSON)').fill('{"born": 1815, "field": "mathematics"}');

    await create.getByRole('textbox', { name: 'Observation 1' }).fill('Wrote the first program');
    await create.getByRole('button', { name: 'Add Observation' }).click();
    await expect(create.getByRole('textbox', { name: 'Observation 2' })).toBeFocused();
    await create
      .getByRole('textbox', { name: 'Observation 2' })
      .fill('Worked with Charles Babbage');
    await create.getByRole('button', { name: 'Add Observation' }).click();
    // A blank third box is dropped on save.
    await expect(create.getByRole('button', { name: /Remove observation/ })).toHaveCount(3);
    await submit.click();
    await expect(page.getByText('Entity created successfully')).toBeVisible();
    await expect(create).toBeHidden();

    const ada = card(page, 'Ada Lovelace');
    await expect(ada).toBeVisible();
    await expect(ada.getByText('mathematician')).toBeVisible();
    await expect(ada.getByText('2 observations')).toBeVisible();
    await expect(ada.getByText('born:')).toBeVisible();
    await expect(ada.getByText('1815')).toBeVisible();
    await expect(ada.getByText('mathematics', { exact: true })).toBeVisible();
    await expect(page.getByText('1 entity', { exact: true })).toBeVisible();

    const list = await call<{ entities: ApiEntity[] }>('GET', '/api/entities');
    const created = list.entities[0]!;
    expect(created.name).toBe('Ada Lovelace');
    expect(created.type).toBe('mathematician');
    expect(created.metadata).toEqual({ born: 1815, field: 'mathematics' });
    expect(created.observations.map((o) => o.content)).toEqual([
      'Wrote the first program',
      'Worked with Charles Babbage',
    ]);

    // ── view ────────────────────────────────────────────────────────────────
    await cardAction(page, 'Ada Lovelace', 'View Details');
    const view = page.getByRole('dialog', { name: 'Ada Lovelace' });
    await expect(view.getByText(created.id)).toBeVisible();
    await expect(view.getByText('mathematician')).toBeVisible();
    await expect(view.locator('pre')).toHaveText(
      JSON.stringify({ born: 1815, field: 'mathematics' }, null, 2),
    );
    const observations = view.getByRole('region', { name: 'Observations' }).getByRole('listitem');
    await expect(observations).toHaveCount(2);
    await expect(observations.first()).toContainText('Wrote the first program');
    // Escape closes; the dialog gave focus back.
    await page.keyboard.press('Escape');
    await expect(view).toBeHidden();

    // ── edit (from the View dialog) ─────────────────────────────────────────
    await cardAction(page, 'Ada Lovelace', 'View Details');
    await view.getByRole('button', { name: 'Edit Entity' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Entity' });
    await expect(edit.getByLabel('Name')).toHaveValue('Ada Lovelace');
    await expect(edit.getByRole('combobox', { name: 'Type', exact: true })).toHaveText(
      /mathematician/,
    );
    await expect(edit.getByRole('textbox', { name: 'Observation 2' })).toHaveValue(
      'Worked with Charles Babbage',
    );

    const writes: string[] = [];
    page.on('request', (sent) => {
      if (['PUT', 'POST', 'DELETE'].includes(sent.method())) writes.push(sent.url());
    });
    await edit.getByLabel('Metadata (JSON)').fill('{"born": 1815,');
    await edit.getByRole('button', { name: 'Save Changes' }).click();
    await expect(edit.getByText('Invalid JSON format')).toBeVisible();
    await expect(edit.getByLabel('Metadata (JSON)')).toBeFocused();
    expect(writes).toEqual([]);

    await edit.getByLabel('Metadata (JSON)').fill('{"born": 1815, "field": "computing"}');
    await edit.getByRole('button', { name: 'Remove observation 2' }).click();
    await edit.getByRole('button', { name: 'Add Observation' }).click();
    await edit
      .getByRole('textbox', { name: 'Observation 2' })
      .fill('Notes on the Analytical Engine');
    await edit.getByRole('button', { name: 'Save Changes' }).click();
    await expect(page.getByText('Entity updated successfully')).toBeVisible();
    await expect(edit).toBeHidden();
    await expect(ada.getByText('computing')).toBeVisible();

    const edited = await call('GET', `/api/entities/${created.id}`);
    expect(edited.metadata).toEqual({ born: 1815, field: 'computing' });
    expect(edited.observations.map((o) => o.content)).toEqual([
      'Wrote the first program',
      'Notes on the Analytical Engine',
    ]);
    // The observation left alone kept its id and date: it was not deleted and re-created.
    expect(edited.observations[0]).toEqual(created.observations[0]);

    // ── search and filter ───────────────────────────────────────────────────
    await call('POST', '/api/entities', { name: 'Charles Babbage', type: 'person' });
    await call('POST', '/api/entities', { name: 'Analytical Engine', type: 'product' });
    await expect(card(page, 'Charles Babbage')).toBeVisible();
    await expect(page.getByText('3 entities', { exact: true })).toBeVisible();

    const search = page.getByRole('searchbox', { name: 'Search entities' });
    await search.fill('engine');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    // A name match, then an observation match (Ada's notes), ranked in that order.
    await expect(page.getByRole('article')).toHaveCount(2);
    await expect(page.getByRole('article').nth(0)).toHaveAccessibleName('Analytical Engine');
    await expect(page.getByRole('article').nth(1)).toHaveAccessibleName('Ada Lovelace');
    await expect(page).toHaveURL(/q=engine/);
    await search.fill('CHARLES');
    await search.press('Enter');
    await expect(page.getByRole('article')).toHaveCount(1);
    await expect(card(page, 'Charles Babbage')).toBeVisible();
    await expect(page.getByText('1 entity found')).toBeVisible();
    await search.fill('no such thing');
    await search.press('Enter');
    await expect(page.getByText('No entities found')).toBeVisible();
    await search.fill('');
    await search.press('Enter');
    await expect(page.getByRole('article')).toHaveCount(3);

    await page.getByRole('combobox', { name: 'Entity type' }).click();
    const typeOptions = page.getByRole('option');
    await expect(typeOptions.first()).toHaveText('All Types');
    await expect(page.getByRole('option', { name: 'Person (1)' })).toBeVisible();
    await expect(page.getByRole('option', { name: 'Mathematician (1)' })).toBeVisible();
    await page.getByRole('option', { name: 'Person (1)' }).click();
    await expect(page.getByRole('article')).toHaveCount(1);
    await expect(card(page, 'Charles Babbage')).toBeVisible();
    await expect(page).toHaveURL(/type=person/);
    await choose(page, page, 'Entity type', 'All Types');
    await expect(page.getByRole('article')).toHaveCount(3);
    // The filter's own search asks the server for the types starting with the text.
    await page.getByRole('combobox', { name: 'Entity type' }).click();
    await page.getByRole('combobox', { name: 'Search entity types' }).fill('MATH');
    await expect(page.getByRole('option')).toHaveText(['All Types', 'Mathematician (1)']);
    await page.keyboard.press('Escape');
    await expect(page.getByRole('listbox')).toBeHidden();

    // ── delete ──────────────────────────────────────────────────────────────
    await cardAction(page, 'Ada Lovelace', 'Delete Entity');
    const confirm = page.getByRole('dialog', { name: 'Delete Entity' });
    await expect(
      confirm.getByText('Are you sure you want to delete "Ada Lovelace"?'),
    ).toBeVisible();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(confirm).toBeHidden();
    await expect(ada).toBeVisible();

    await cardAction(page, 'Ada Lovelace', 'Delete Entity');
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect(page.getByText('Entity deleted successfully')).toBeVisible();
    await expect(ada).toBeHidden();
    await expect(page.getByRole('article')).toHaveCount(2);
    const gone = await request.get(`/api/entities/${created.id}`, {
      headers: { Authorization: `Bearer ${account.token}` },
    });
    expect(gone.status()).toBe(404);
  });

  test('a name another entity has is refused at the field, and the form stays open', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'entities-conflict');
    await api(request, account)('POST', '/api/entities', { name: 'Ada', type: 'person' });
    await openSignedIn(page, account, '/entities');
    await page.getByRole('button', { name: 'Create Entity' }).click();
    const create = page.getByRole('dialog', { name: 'Create Entity' });
    await create.getByLabel('Name').fill('Ada');
    await choose(page, create, 'Type', 'person');
    await create.getByRole('button', { name: 'Create Entity' }).click();
    await expect(page.getByText('Failed to save entity')).toBeVisible();
    await expect(create.getByText('An entity named "Ada" already exists')).toBeVisible();
    await expect(create).toBeVisible();
  });

  test('a card opens the entity page; the menu works with the keyboard', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'entities-nav');
    const ada = await api(request, account)('POST', '/api/entities', {
      name: 'Ada',
      type: 'person',
    });
    await openSignedIn(page, account, '/entities');
    const adaCard = card(page, 'Ada');
    await adaCard.getByRole('button', { name: 'Actions for Ada' }).focus();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('menuitem', { name: 'View Details' })).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(page.getByRole('menuitem', { name: 'Edit Entity' })).toBeFocused();
    await page.keyboard.press('Enter');
    const edit = page.getByRole('dialog', { name: 'Edit Entity' });
    await expect(edit.getByLabel('Name')).toHaveValue('Ada');
    // Focus stays inside the dialog, and Escape closes it.
    for (let i = 0; i < 12; i++) await page.keyboard.press('Tab');
    expect(await edit.evaluate((dialog) => dialog.contains(document.activeElement))).toBe(true);
    await page.keyboard.press('Escape');
    await expect(edit).toBeHidden();

    await adaCard.click({ position: { x: 20, y: 70 } });
    await expect(page).toHaveURL(`/entities/${ada.id}`);
  });

  test('?create=1 opens Create Entity and ?focus=search focuses the search, then both leave the address', async ({
    page,
    request,
  }) => {
    const account = await createAccount(request, 'entities-arrival');
    await openSignedIn(page, account, '/entities?create=1');
    await expect(page.getByRole('dialog', { name: 'Create Entity' })).toBeVisible();
    await expect(page).toHaveURL('/entities');
    await page.keyboard.press('Escape');

    await page.goto('/entities?focus=search');
    await expect(page.getByRole('searchbox', { name: 'Search entities' })).toBeFocused();
    await expect(page).toHaveURL('/entities');
    await expect(page.getByRole('dialog')).toHaveCount(0);
  });

  test('an entity created over the REST API elsewhere appears live, without closing an open dialog', async ({
    browser,
    request,
  }) => {
    const account = await createAccount(request, 'entities-live');
    const page = await (await browser.newContext()).newPage();
    await openSignedIn(page, account, '/entities');
    await expect(page.getByText('No entities found')).toBeVisible();
    await expect(
      page.getByRole('status', { name: 'Realtime connection: Connected', exact: true }),
    ).toBeVisible();

    // Another context (an agent with the account's credentials) writes over REST.
    const other = await browser.newContext();
    const call = api(other.request, account, process.env.E2E_BASE_URL);
    const grace = await call('POST', '/api/entities', {
      name: 'Grace Hopper',
      type: 'person',
      observations: ['Wrote the first compiler'],
    });
    await expect(card(page, 'Grace Hopper')).toBeVisible();
    await expect(card(page, 'Grace Hopper').getByText('1 observation')).toBeVisible();

    // An open dialog survives the refresh and shows the change.
    await cardAction(page, 'Grace Hopper', 'View Details');
    const view = page.getByRole('dialog', { name: 'Grace Hopper' });
    await call('POST', `/api/entities/${grace.id}/observations`, {
      observations: ['Popularised the term debugging'],
    });
    await call('POST', '/api/entities', { name: 'Alan Turing', type: 'person' });
    await expect(view.getByText('Popularised the term debugging')).toBeVisible();
    await expect(view).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(card(page, 'Alan Turing')).toBeVisible();
    await other.close();
  });
});

// ── a big account ───────────────────────────────────────────────────────────

const SERVER_DIST = new URL('../../server/dist/', import.meta.url);
const BIG = 5_000;
const BIG_RELATIONS = 150;

interface OpenedDatabase {
  withSession<T>(
    fn: (session: { query<R>(text: string, params?: unknown[]): Promise<R[]> }) => Promise<T>,
  ): Promise<T>;
  close(): Promise<void>;
}

/**
 * A private server whose account is on the Pro plan (100,000 entities) and
 * holds the graph of `lines` (JSONL). Sign-up gives the Free plan and the
 * app has no plan change without a payment provider, so the plan is set in
 * the server's own data folder while it is stopped, with the server's own
 * database module (as the benchmarks do). The graph goes in through the
 * product's bulk import (`engram import`), the path an operator would use.
 */
async function privateAccount(
  label: string,
  lines: string[],
): Promise<{ server: PrivateServer; account: Account }> {
  const server = await PrivateServer.create();
  await server.start();
  const email = `e2e-${label}-${Date.now()}@example.com`;
  const register = await fetch(`${server.baseUrl}/auth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: 'Engines1843', firstName: 'Ada', lastName: 'Big' }),
  });
  expect(register.status).toBe(201);
  const { token, user } = (await register.json()) as {
    token: string;
    user: { id: string; apiKey: string };
  };
  await server.stop();

  const { openDatabase } = (await import(new URL('db/connection.js', SERVER_DIST).href)) as {
    openDatabase: (options: { dataDir: string }) => Promise<OpenedDatabase>;
  };
  const database = await openDatabase({ dataDir: server.dataDir });
  try {
    const moved = await database.withSession((session) =>
      session.query(
        `update subscriptions set plan_id = 'pro'
          where account_id in (select account_id from account_members where user_id = $1)
          returning account_id`,
        [user.id],
      ),
    );
    expect(moved).toHaveLength(1);
  } finally {
    await database.close();
  }

  const folder = await mkdtemp(join(tmpdir(), 'engram-e2e-import-'));
  const file = join(folder, 'graph.jsonl');
  await writeFile(file, lines.join('\n'));
  const importer = spawn(
    process.execPath,
    [fileURLToPath(new URL('main.js', SERVER_DIST)), 'import', file],
    {
      env: {
        ...process.env,
        DATA_DIR: server.dataDir,
        ENGRAM_API_KEY: user.apiKey,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const [code] = (await once(importer, 'exit')) as [number | null];
  await rm(folder, { recursive: true, force: true });
  expect(code).toBe(0);

  await server.start();
  return {
    server,
    account: { email, password: 'Engines1843', firstName: 'Ada', lastName: 'Big', token },
  };
}

/** 5,000 entities of three types, and 150 relations. */
function bigAccount() {
  const lines: string[] = [];
  for (let i = 1; i <= BIG; i++) {
    lines.push(
      JSON.stringify({
        type: 'entity',
        name: `Entity ${String(i).padStart(5, '0')}`,
        entityType: ['person', 'concept', 'technology'][i % 3],
        observations: [`Observation of entity ${i}`],
      }),
    );
  }
  for (let i = 1; i <= BIG_RELATIONS; i++) {
    lines.push(
      JSON.stringify({
        type: 'relation',
        from: `Entity ${String(i).padStart(5, '0')}`,
        to: `Entity ${String(i + 1).padStart(5, '0')}`,
        relationType: 'relates_to',
      }),
    );
  }
  return privateAccount('big', lines);
}

async function signedInOn(browser: Browser, server: PrivateServer, account: Account, path: string) {
  const context = await browser.newContext({ baseURL: server.baseUrl });
  const page = await context.newPage();
  await openSignedIn(page, account, path);
  return page;
}

test.describe('A 5,000-entity account', () => {
  test.describe.configure({ timeout: 240_000 });
  let big: Awaited<ReturnType<typeof bigAccount>>;
  test.beforeAll(async () => {
    test.setTimeout(240_000);
    big = await bigAccount();
  });
  test.afterAll(async () => {
    await big?.server.dispose();
  });

  test('the grid shows the first 100 fast and Load more fetches the next 100 from the server', async ({
    browser,
  }) => {
    const pages: string[] = [];
    const page = await signedInOn(browser, big.server, big.account, '/dashboard');
    page.on('request', (sent) => {
      const url = new URL(sent.url());
      if (url.pathname === '/api/entities') pages.push(url.search);
    });
    await page.goto('/entities');
    // Only one page of 100 is fetched (asserted below with the requests); how
    // fast it shows is a benchmark's question, not a wall-clock test's.
    await expect(page.getByText('5,000 entities', { exact: true })).toBeVisible();
    await expect(page.getByText('Showing 100 of 5,000')).toBeVisible();
    // Newest first: the import's last entity leads.
    await expect(page.getByRole('article').first()).toHaveAccessibleName('Entity 05000');

    await page.getByRole('button', { name: 'Load more' }).click();
    await expect(page.getByText('Showing 200 of 5,000')).toBeVisible();
    // The next page goes on by the cursor the first gave, not by offset.
    expect(pages).toEqual(['?limit=100', expect.stringMatching(/^\?limit=100&cursor=[\w-]+$/)]);
    await page.evaluate(() =>
      window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' }),
    );
    await expect(card(page, 'Entity 04801')).toBeVisible();
    await page.evaluate(() => window.scrollTo(0, 0));
    await saveScreenshot(page, 'entities-big-account-desktop');

    // The type filter counts come from the server, for all 5,000.
    await page.getByRole('combobox', { name: 'Entity type' }).click();
    const person = page.getByRole('option', { name: 'Person (1,666)' });
    await expect(person).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(person).toBeHidden();
    // Closing gives the focus back to the filter, a moment later on a loaded
    // machine: typed after that, Enter submits the search instead of reopening it.
    await expect(page.getByRole('combobox', { name: 'Entity type' })).toBeFocused();

    // Search reaches entities far past the pages on screen.
    await page.getByRole('searchbox', { name: 'Search entities' }).fill('Entity 00042');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('article').first()).toHaveAccessibleName('Entity 00042');
  });

  test('the relation pickers find an entity that is not among the first 100, and relations page too', async ({
    browser,
  }) => {
    const page = await signedInOn(browser, big.server, big.account, '/relations');
    await expect(page.getByText('150 relations', { exact: true })).toBeVisible();
    await expect(page.getByRole('row')).toHaveCount(101); // header + the first page
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect(page.getByRole('row')).toHaveCount(151);

    await page.getByRole('button', { name: 'Create Relation' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create New Relation' });
    await dialog.getByRole('button', { name: 'Source Entity' }).click();
    const sourceSearch = page.getByRole('combobox', { name: 'Search source entities' });
    await expect(sourceSearch).toBeFocused();
    await expect(page.getByRole('option')).toHaveCount(20);
    await sourceSearch.fill('Entity 00007');
    await expect(page.getByRole('option').first()).toHaveAccessibleName(/^Entity 00007/);
    await page.keyboard.press('Enter');
    await expect(dialog.getByRole('button', { name: 'Source Entity' })).toContainText(
      'Entity 00007',
    );

    await dialog.getByRole('button', { name: 'Target Entity' }).click();
    await page.getByRole('combobox', { name: 'Search target entities' }).fill('Entity 00013');
    await page.getByRole('option', { name: /^Entity 00013/ }).click();
    await choose(page, dialog, 'Relation Type', /^Influences/);
    await dialog.getByRole('button', { name: 'Create Relation' }).click();
    await expect(page.getByText('Relation created successfully')).toBeVisible();
    await expect(page.getByText('151 relations', { exact: true })).toBeVisible();
  });
});

// ── 20,000 types ────────────────────────────────────────────────────────────

const MANY_TYPES = 20_000;
const pad5 = (i: number) => String(i).padStart(5, '0');

/**
 * 20,000 entities of 20,000 types ('kind_00000'…) and 20,000 relations of
 * 20,000 types ('rel_00000'…) between two hubs; twelve people know each other,
 * so 'person' and 'knows' are the most common types (issue 31, finding 4).
 */
function manyTypesAccount() {
  const lines: string[] = [];
  const entity = (name: string, entityType: string) =>
    lines.push(JSON.stringify({ type: 'entity', name, entityType, observations: [] }));
  const relation = (from: string, to: string, relationType: string) =>
    lines.push(JSON.stringify({ type: 'relation', from, to, relationType }));
  for (let i = 0; i < MANY_TYPES; i++) entity(`Thing ${pad5(i)}`, `kind_${pad5(i)}`);
  const people = Array.from({ length: 12 }, (_, i) => `Person ${i + 1}`);
  for (const person of people) entity(person, 'person');
  for (let i = 1; i < people.length; i++) relation(people[i - 1]!, people[i]!, 'knows');
  for (let i = 0; i < MANY_TYPES; i++) relation('Person 1', 'Person 12', `rel_${pad5(i)}`);
  return privateAccount('many-types', lines);
}

/** What the screen shows (the open list), not the whole page. */
async function pickerShot(page: Page, name: string) {
  await page.screenshot({
    path: `test-results/screenshots/${name}.png`,
    animations: 'disabled',
  });
}

/** Every type list the page reads answers at most one page. */
function watchTypeReads(page: Page) {
  const sizes: number[] = [];
  const prefixes: string[] = [];
  page.on('response', async (response) => {
    const url = new URL(response.url());
    if (!/^\/api\/(entities|relations)\/types$/.test(url.pathname)) return;
    prefixes.push(url.searchParams.get('prefix') ?? '');
    // A read still arriving when the test ends has no body to give: the page is closed.
    const body = await response.json().catch(() => undefined);
    if (body) sizes.push((body as { types: unknown[] }).types.length);
  });
  return { sizes, prefixes };
}

test.describe('An account with 20,000 entity types and 20,000 relation types', () => {
  test.describe.configure({ timeout: 240_000 });
  let many: Awaited<ReturnType<typeof manyTypesAccount>>;
  test.beforeAll(async () => {
    test.setTimeout(240_000);
    many = await manyTypesAccount();
  });
  test.afterAll(async () => {
    await many?.server.dispose();
  });

  test('the entity type filter and the form’s type picker show one page and search the server', async ({
    browser,
  }) => {
    const page = await signedInOn(browser, many.server, many.account, '/entities');
    const reads = watchTypeReads(page);
    await expect(page.getByText('20,012 entities', { exact: true })).toBeVisible();

    // The filter: All Types, then the first page, most common first.
    await page.getByRole('combobox', { name: 'Entity type' }).click();
    const search = page.getByRole('combobox', { name: 'Search entity types' });
    await expect(search).toBeFocused();
    const options = page.getByRole('option');
    await expect(options).toHaveCount(101);
    await expect(options.nth(0)).toHaveText('All Types');
    await expect(options.nth(1)).toHaveText('Person (12)');
    await expect(page.getByRole('button', { name: 'Load more types' })).toBeVisible();
    await pickerShot(page, 'entities-type-filter-20000-desktop');
    await page.getByRole('button', { name: 'Load more types' }).click();
    await expect(options).toHaveCount(201);

    // Typing searches the server by prefix, in any case.
    await search.fill('KIND_1999');
    await expect(options).toHaveCount(11);
    await expect(options.nth(1)).toHaveText('Kind 19990 (1)');
    await pickerShot(page, 'entities-type-filter-search-desktop');
    await page.getByRole('option', { name: 'Kind 19995 (1)' }).click();
    await expect(page).toHaveURL(/type=kind_19995/);
    await expect(page.getByRole('article')).toHaveCount(1);
    await expect(card(page, 'Thing 19995')).toBeVisible();
    await expect(page.getByRole('combobox', { name: 'Entity type' })).toHaveText('Kind 19995');
    await choose(page, page, 'Entity type', 'All Types');
    await expect(page.getByText('20,012 entities', { exact: true })).toBeVisible();

    // The form: the account's types by search, and Custom Type... after them.
    await page.getByRole('button', { name: 'Create Entity' }).click();
    const create = page.getByRole('dialog', { name: 'Create Entity' });
    await create.getByLabel('Name').fill('Thing new');
    await create.getByRole('combobox', { name: 'Type', exact: true }).click();
    // The first page (the filter's second page was let go when it closed), the five
    // known types ('person' is on the page), then Custom Type...
    await expect(options).toHaveCount(106);
    await expect(options.last()).toHaveText('Custom Type...');
    await page.getByRole('combobox', { name: 'Search types' }).fill('kind_0000');
    await expect(options).toHaveCount(11);
    await pickerShot(page, 'entities-form-type-search-desktop');
    await page.getByRole('option', { name: 'kind_00007', exact: true }).click();
    await expect(create.getByRole('combobox', { name: 'Type', exact: true })).toHaveText(
      'kind_00007',
    );
    await create.getByRole('button', { name: 'Create Entity' }).click();
    await expect(page.getByText('Entity created successfully')).toBeVisible();
    await expect(card(page, 'Thing new')).toContainText('kind_00007');

    expect(reads.prefixes).toEqual(expect.arrayContaining(['', 'KIND_1999', 'kind_0000']));
    expect(Math.max(...reads.sizes)).toBeLessThanOrEqual(100);

    // At 375 px the open list fits the screen.
    await page.setViewportSize({ width: 375, height: 812 });
    await page.getByRole('combobox', { name: 'Entity type' }).click();
    await expect(options).toHaveCount(101);
    await page.getByRole('combobox', { name: 'Search entity types' }).fill('kind_1');
    await expect(options.nth(1)).toHaveText('Kind 10000 (1)');
    await pickerShot(page, 'entities-type-filter-search-mobile');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Create Entity' }).click();
    await create.getByRole('combobox', { name: 'Type', exact: true }).click();
    await page.getByRole('combobox', { name: 'Search types' }).fill('Kind_0001');
    await expect(options).toHaveCount(11);
    await pickerShot(page, 'entities-form-type-search-mobile');
    await page.close();
  });

  test('the relation type filter shows one page and searches the server', async ({ browser }) => {
    const page = await signedInOn(browser, many.server, many.account, '/relations');
    const reads = watchTypeReads(page);
    await expect(page.getByText('20,011 relations', { exact: true })).toBeVisible();
    await page.getByRole('combobox', { name: 'Relation type' }).click();
    const options = page.getByRole('option');
    await expect(options).toHaveCount(101);
    await expect(options.nth(0)).toHaveText('All Types');
    await expect(options.nth(1)).toHaveText('Knows (11)');
    await expect(options.nth(2)).toHaveText('Rel 00000 (1)');
    await pickerShot(page, 'relations-type-filter-20000-desktop');

    await page.getByRole('combobox', { name: 'Search relation types' }).fill('Rel_1234');
    await expect(options).toHaveCount(11);
    await pickerShot(page, 'relations-type-filter-search-desktop');
    // Arrow keys and Enter pick, as in the entity pickers.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/type=rel_12341/);
    await expect(page.getByText('1 relation found')).toBeVisible();
    await expect(page.getByRole('combobox', { name: 'Relation type' })).toHaveText('Rel 12341');

    expect(reads.prefixes).toEqual(expect.arrayContaining(['', 'Rel_1234']));
    expect(Math.max(...reads.sizes)).toBeLessThanOrEqual(100);

    await page.setViewportSize({ width: 375, height: 812 });
    await page.getByRole('combobox', { name: 'Relation type' }).click();
    await page.getByRole('combobox', { name: 'Search relation types' }).fill('rel_0');
    await expect(options).toHaveCount(101);
    await pickerShot(page, 'relations-type-filter-search-mobile');
    await page.close();
  });
});

// ── pictures ────────────────────────────────────────────────────────────────

const WIDTHS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'mobile', width: 375, height: 812 },
] as const;

for (const viewport of WIDTHS) {
  test.describe(`Entity Management screenshots at ${viewport.width}px`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });
    test.setTimeout(120_000);

    test('every state of the screen', async ({ page, request }) => {
      // Animations are run to their end, so menus and dialogs show as they settle.
      const shot = async (name: string) => {
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({
          path: `test-results/screenshots/entities-${name}-${viewport.name}.png`,
          fullPage: true,
          animations: 'disabled',
        });
      };
      const viewportShot = (name: string) =>
        page.screenshot({
          path: `test-results/screenshots/entities-${name}-${viewport.name}.png`,
          animations: 'disabled',
        });

      const account = await createAccount(request, `entities-shots-${viewport.name}`);
      const call = api(request, account);

      // Loading: the first answer is held back a moment.
      await page.route('**/api/entities?*', async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await route.fallback();
      });
      await openSignedIn(page, account, '/entities');
      await expect(page.getByText('Loading entities...')).toBeVisible();
      await viewportShot('loading');
      await page.unrouteAll({ behavior: 'wait' });
      await expect(page.getByText('No entities found')).toBeVisible();
      await shot('empty');

      await page.getByRole('button', { name: 'Create Entity' }).first().click();
      const create = page.getByRole('dialog', { name: 'Create Entity' });
      // One submit shows every mistake at its field.
      await create.getByLabel('Metadata (JSON)').fill('{"born": 1815,');
      await create.getByRole('button', { name: 'Create Entity' }).click();
      await expect(create.getByText('Name is required')).toBeVisible();
      await expect(create.getByText('Type is required')).toBeVisible();
      await expect(create.getByText('Invalid JSON format')).toBeVisible();
      await viewportShot('create-errors');
      await create.getByLabel('Name').fill('Ada Lovelace');
      await choose(page, create, 'Type', 'Custom Type...');
      await create.getByRole('textbox', { name: 'Custom type' }).fill('mathematician');
      await create.getByLabel('Metadata (JSON)').fill('{"born": 1815, "field": "mathematics"}');
      await create.getByRole('textbox', { name: 'Observation 1' }).fill('Wrote the first program');
      await create.getByRole('button', { name: 'Add Observation' }).click();
      await create
        .getByRole('textbox', { name: 'Observation 2' })
        .fill('Worked with Charles Babbage on the Analytical Engine');
      await viewportShot('create-filled');
      await create.getByRole('button', { name: 'Create Entity' }).click();
      await expect(create).toBeHidden();

      const samples: [string, string, Record<string, unknown>, string[]][] = [
        [
          'Charles Babbage',
          'person',
          { born: 1791, nationality: 'British' },
          ['Designed the Difference Engine'],
        ],
        [
          'Analytical Engine',
          'product',
          { year: 1837, status: 'designed', builder: 'Babbage', extra: 1 },
          [],
        ],
        [
          'Engram',
          'technology',
          {},
          ['Persistent memory for agents', 'Built on PostgreSQL', 'Speaks MCP'],
        ],
        ['Knowledge graph', 'concept', { domain: 'AI' }, ['Entities linked by typed relations']],
        [
          'Acme Corp',
          'company',
          { employees: 1200, hq: 'Springfield, a rather long city name' },
          [],
        ],
        ['Launch day', 'event', { date: '2027-03-01' }, ['Public release']],
      ];
      for (const [name, type, metadata, observations] of samples) {
        await call('POST', '/api/entities', { name, type, metadata, observations });
      }
      await expect(page.getByText('7 entities', { exact: true })).toBeVisible();
      // A fresh load: no toasts or live notices over the cards.
      await page.reload();
      await expect(page.getByRole('article')).toHaveCount(7);
      await page.mouse.move(0, 0);
      await shot('grid');
      await page.emulateMedia({ colorScheme: 'dark' });
      await shot('grid-dark');
      await page.emulateMedia({ colorScheme: 'light' });

      await card(page, 'Ada Lovelace')
        .getByRole('button', { name: 'Actions for Ada Lovelace' })
        .click();
      await expect(page.getByRole('menu')).toBeVisible();
      await viewportShot('card-menu');
      await page.getByRole('menuitem', { name: 'View Details' }).click();
      await expect(page.getByRole('dialog', { name: 'Ada Lovelace' })).toBeVisible();
      await viewportShot('view-dialog');
      await page.getByRole('button', { name: 'Edit Entity' }).click();
      const edit = page.getByRole('dialog', { name: 'Edit Entity' });
      await expect(edit.getByLabel('Name')).toHaveValue('Ada Lovelace');
      await edit.getByLabel('Metadata (JSON)').fill('{"born": 1815,');
      await edit.getByRole('button', { name: 'Save Changes' }).click();
      await expect(edit.getByText('Invalid JSON format')).toBeVisible();
      await viewportShot('edit-dialog');
      // Typed input: Escape asks before throwing it away.
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'Discard' }).click();
      await expect(edit).toBeHidden();

      await cardAction(page, 'Engram', 'View Details');
      await viewportShot('view-dialog-no-metadata');
      await page.keyboard.press('Escape');

      await cardAction(page, 'Ada Lovelace', 'Delete Entity');
      await expect(page.getByRole('dialog', { name: 'Delete Entity' })).toBeVisible();
      await viewportShot('delete-dialog');
      await page.keyboard.press('Escape');

      await page.getByRole('combobox', { name: 'Entity type' }).click();
      await expect(page.getByRole('option', { name: 'Person (1)' })).toBeVisible();
      await viewportShot('type-filter');
      await page.getByRole('option', { name: 'Person (1)' }).click();
      await expect(page.getByRole('article')).toHaveCount(1);
      await shot('filtered');

      await page.route('**/api/entities?*', (route) =>
        route.fulfill({ status: 500, json: { error: 'Internal error', code: 'INTERNAL_ERROR' } }),
      );
      await page.reload();
      await expect(page.getByText('Failed to load entities').first()).toBeVisible({
        timeout: 15_000,
      });
      await shot('load-error');
      await page.unrouteAll();
    });
  });
}

// ── 2,000 entities: pages by cursor, cards drawn by the screenful ──────────────

const MANY = 2_000;
const manyName = (i: number) => `Card ${String(i).padStart(4, '0')}`;

/** Calls one MCP tool as an agent would (Streamable HTTP at /mcp), failing the test on an error. */
async function mcpCall(
  request: APIRequestContext,
  account: Account,
  name: string,
  args: Record<string, unknown>,
) {
  const headers = {
    Authorization: `Bearer ${account.token}`,
    Accept: 'application/json, text/event-stream',
    'Content-Type': 'application/json',
  };
  const init = await request.post('/mcp', {
    headers,
    data: {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'engram-e2e', version: '1.0.0' },
      },
    },
  });
  expect(init.status(), await init.text()).toBe(200);
  const session = {
    ...headers,
    'Mcp-Session-Id': init.headers()['mcp-session-id'] ?? '',
    'Mcp-Protocol-Version': '2025-06-18',
  };
  await request.post('/mcp', {
    headers: session,
    data: { jsonrpc: '2.0', method: 'notifications/initialized' },
  });
  const call = await request.post('/mcp', {
    headers: session,
    data: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } },
    timeout: 60_000,
  });
  const text = await call.text();
  expect(call.status(), text.slice(0, 300)).toBe(200);
  expect(text).not.toContain('"isError":true');
  await request.delete('/mcp', { headers: session });
}

/** An account on Starter (no payment provider: the upgrade applies at once) holding 2,000 entities. */
async function accountWithMany(request: APIRequestContext, label: string) {
  const account = await createAccount(request, label);
  const upgrade = await request.post('/api/billing/checkout', {
    headers: { Authorization: `Bearer ${account.token}` },
    data: {
      priceId: 'price_starter_monthly',
      successUrl: 'http://127.0.0.1/dashboard',
      cancelUrl: 'http://127.0.0.1/billing',
    },
  });
  expect(upgrade.ok(), await upgrade.text()).toBe(true);
  // Two batches of 1,000, oldest first: 'Card 2000' is the newest.
  for (let start = 1; start <= MANY; start += 1_000) {
    await mcpCall(request, account, 'create_entities', {
      entities: Array.from({ length: 1_000 }, (_, k) => {
        const i = start + k;
        return {
          name: manyName(i),
          entityType: ['person', 'concept', 'technology'][i % 3],
          observations: i % 4 ? [`Observation ${i}`] : [],
        };
      }),
    });
  }
  return account;
}

/**
 * Scrolls the whole grid a screen at a time and reads the card names in
 * page order, each once; also the most cards the page held at one time.
 */
async function readGridByScrolling(page: Page) {
  return page.evaluate(async () => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(null)));
    const seen: string[] = [];
    const known = new Set<string>();
    let most = 0;
    for (let y = 0; ; y += Math.floor(window.innerHeight * 0.8)) {
      // Instantly: the page scrolls smoothly otherwise.
      window.scrollTo({ top: y, behavior: 'instant' });
      await frame();
      await frame();
      const cards = Array.from(document.querySelectorAll('[role="article"]'));
      most = Math.max(most, cards.length);
      for (const card of cards) {
        const name = card.querySelector('h3')?.textContent ?? '';
        if (!known.has(name)) {
          known.add(name);
          seen.push(name);
        }
      }
      if (y + window.innerHeight >= document.documentElement.scrollHeight) break;
    }
    return { seen, most };
  });
}

for (const viewport of [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'mobile', width: 375, height: 812 },
] as const) {
  test.describe(`2,000 entities at ${viewport.width}px`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });
    test.describe.configure({ timeout: 240_000 });

    test('Load more pages by cursor to the end without gaps or repeats; only the cards on screen are in the page', async ({
      page,
      request,
    }) => {
      const account = await accountWithMany(request, `entities-many-${viewport.name}`);
      const asked: URL[] = [];
      const answered: string[] = [];
      page.on('request', (sent) => {
        const url = new URL(sent.url());
        if (url.pathname === '/api/entities') asked.push(url);
      });
      page.on('response', async (response) => {
        if (new URL(response.url()).pathname !== '/api/entities') return;
        const body = (await response.json()) as { entities: { name: string }[] };
        answered.push(...body.entities.map((entity) => entity.name));
      });

      await openSignedIn(page, account, '/entities');
      await expect(page.getByText('2,000 entities', { exact: true })).toBeVisible();
      await expect(page.getByText('Showing 100 of 2,000')).toBeVisible();
      await expect(page.getByRole('article').first()).toHaveAccessibleName(manyName(MANY));

      const loadMore = page.getByRole('button', { name: 'Load more' });
      for (let loaded = 200; loaded <= MANY; loaded += 100) {
        await loadMore.scrollIntoViewIfNeeded();
        await loadMore.click();
        if (loaded < MANY) {
          await expect(
            page.getByText(`Showing ${loaded.toLocaleString('en-US')} of 2,000`),
          ).toBeVisible();
        }
      }
      await expect(loadMore).toHaveCount(0);
      await expect(page.getByText('2,000 entities', { exact: true })).toBeVisible();

      // Twenty pages: the first without a cursor, every later one by the cursor before it.
      expect(asked).toHaveLength(20);
      expect(asked[0]!.searchParams.has('cursor')).toBe(false);
      expect(asked.slice(1).every((url) => url.searchParams.has('cursor'))).toBe(true);
      expect(asked.some((url) => url.searchParams.has('offset'))).toBe(false);
      // What the server answered: every entity once, newest first.
      const newestFirst = Array.from({ length: MANY }, (_, k) => manyName(MANY - k));
      expect(answered).toEqual(newestFirst);

      // What the screen shows, scrolled from top to bottom: the same, in the same order,
      // with far fewer cards in the page at any time than are loaded.
      const { seen, most } = await readGridByScrolling(page);
      expect(seen).toEqual(newestFirst);
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThan(120);
      // The end of the list: the last card, and no Load more.
      await expect(card(page, manyName(1))).toBeVisible();
      await page.screenshot({
        path: `test-results/screenshots/entities-many-end-${viewport.name}.png`,
      });

      // Keyboard focus survives scrolling its card out of view, and Tab goes on to the next card.
      await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
      const first = page.getByRole('link', { name: manyName(MANY), exact: true });
      await first.focus();
      await page.keyboard.press('Tab');
      await expect(
        page.getByRole('button', { name: `Actions for ${manyName(MANY)}` }),
      ).toBeFocused();
      await page.keyboard.press('Tab');
      await expect(page.getByRole('link', { name: manyName(MANY - 1), exact: true })).toBeFocused();
      await page.evaluate(() =>
        window.scrollTo({ top: document.documentElement.scrollHeight / 2, behavior: 'instant' }),
      );
      await expect(page.getByRole('link', { name: manyName(MANY - 1), exact: true })).toBeFocused();
      await page.keyboard.press('Tab');
      await expect(
        page.getByRole('button', { name: `Actions for ${manyName(MANY - 1)}` }),
      ).toBeFocused();

      // Mid-list, the cards fill the width with nothing spilling sideways.
      await page.evaluate(() =>
        window.scrollTo({ top: document.documentElement.scrollHeight / 2, behavior: 'instant' }),
      );
      await page.mouse.move(0, 0);
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      ).toBe(true);
      await page.screenshot({
        path: `test-results/screenshots/entities-many-middle-${viewport.name}.png`,
      });
    });
  });
}
